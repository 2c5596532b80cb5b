# matmul_bias_relu: out[128, 512] = relu(w^T @ x + bias), bias one value per row.
# Tensor multiplies into one 2 KiB PSUM bank (512 fp32 per partition), Scalar applies
# bias and relu on the way from PSUM to SBUF, Sync moves data in and out by DMA.
kernel matmul_bias_relu target=trn2

tensor w    bf16[128, 128] input       # stationary: [K, M]
tensor x    bf16[128, 512] input       # moving:     [K, N]
tensor bias fp32[128, 1] constant = 0.5
tensor out  fp32[128, 512] output

sbuf w_sb    bf16[128, 128]
sbuf x_sb    bf16[128, 512]
sbuf bias_sb fp32[128, 1]
sbuf y       fp32[128, 512]
psum acc     fp32[128, 512]             # exactly one PSUM bank

sem loaded     = 0
sem multiplied = 0
sem activated  = 0
sem stored     = 0

queue in_q  first_engine=0 engines=1
queue out_q first_engine=1 engines=1

sync:
    dma_copy w_sb, w, queue=in_q  signal loaded
    dma_copy x_sb, x, queue=in_q  signal loaded
    dma_copy bias_sb, bias, queue=in_q  signal loaded
    dma_copy out, y, queue=out_q  wait activated>=1  signal stored
    nop  wait stored>=1

tensor:
    matmul acc, w_sb, x_sb  wait loaded>=3  signal multiplied

scalar:
    activation y, acc, func=relu, bias=bias_sb  wait multiplied>=1  signal activated
