# tiny_add: out = a + b for two [128, 512] fp32 tensors.
# Sync loads both inputs into SBUF by DMA, Vector adds them once both loads have landed,
# and Sync stores the sum back to HBM. A transfer signals its semaphore once, when all of
# its parts have landed (docs/assembly.md, "queue").
kernel tiny_add target=trn2

tensor a   fp32[128, 512] input
tensor b   fp32[128, 512] input
tensor out fp32[128, 512] output

sbuf xa fp32[128, 512]          # 2 KiB per partition, placed at offset 0
sbuf xb fp32[128, 512]          # ... at 2048
sbuf xo fp32[128, 512]          # ... at 4096

sem a_loaded = 0
sem b_loaded = 0
sem added    = 0
sem stored   = 0

queue loads  first_engine=0 engines=1
queue stores first_engine=1 engines=1

sync:
    dma_copy xa, a, queue=loads  signal a_loaded
    dma_copy xb, b, queue=loads  signal b_loaded
    dma_copy out, xo, queue=stores  wait added>=1  signal stored
    nop  wait stored>=1          # the kernel ends once the store has landed

vector:
    tensor_tensor xo, xa, xb, op=add  wait a_loaded>=1, b_loaded>=1  signal added
