# The hand-fused RMSNorm (the torch.rms_norm analogue) at [128, 2048] bf16, double-buffered:
# the assembly of examples/rmsnorm.cpp, made by
#   neuronsim example rmsnorm --double-buffer --rows 128 --cols 2048 -t trn2 --asm FILE
# and kept identical to it by tests/cli/example_asm.sh. Other shapes: the same command.
kernel rmsnorm_db target=trn2

tensor x bf16[128, 2048] input
tensor w bf16[2048] input
tensor y bf16[128, 2048] output

sbuf xt bf16[128, 2, 2048]
sbuf yt bf16[128, 2, 2048]
sbuf wt bf16[128, 2048]
sbuf sq bf16[128, 2048]
sbuf ss fp32[128, 2]
sbuf rstd fp32[128, 2]
sbuf eps fp32[128, 1]

sem w_loaded = 0
sem eps_ready = 0
sem x_loaded = 0
sem rstd_ready = 0
sem y_ready = 0
sem x_free = 0
sem y_free = 0

queue load first_engine=0 engines=16
queue store first_engine=0 engines=16

vector:
    memset eps, value=9.999999974752427e-07  signal eps_ready
    scalar_tensor_tensor yt[:, 0, :], xt[:, 0, :], wt, scalar=rstd[:, 0:1], op0=multiply, op1=multiply  wait rstd_ready>=1, w_loaded>=1  signal y_ready, x_free

scalar:
    activation sq, xt[:, 0, :], func=square, scale=0.022097087, reduce=ss[:, 0:1]  wait x_loaded>=1, eps_ready>=1
    activation rstd[:, 0:1], ss[:, 0:1], func=rsqrt, bias=eps  signal rstd_ready

sync:
    dma_copy wt, w{ap=[[0, 128], [1, 2048]]}, queue=load  signal w_loaded
    dma_copy xt[:, 0, :], x, queue=load  signal x_loaded
    dma_copy y, yt[:, 0, :], queue=store  wait y_ready>=1  signal y_free
