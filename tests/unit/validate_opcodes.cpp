// Validation rules of each opcode: shapes, memory spaces and dtypes (reference section 3).
#include <catch2/catch.hpp>

#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

namespace {
// dst[128,512] = wt[128,128]^T @ wt[128,512], bf16: valid.
Matmul valid_matmul() {
  return Matmul{psum(kPs, 128, 512), sbuf(kW, 128, 128, DType::bf16),
                sbuf(kW, 128, 512, DType::bf16)};
}
AccessPattern vec(std::uint32_t partitions = 128) {
  return sbuf(kVec, partitions, 1);
}
}  // namespace

// A double_row matmul: stationary [128, 2, 64], moving [128, 2, 256] fp8, dst [64, 256].
Matmul double_row_matmul() {
  Matmul mm{psum(kPs, 64, 256), sbuf(kW, 128, 128, DType::fp8_e4m3),
            sbuf(kW, 128, 512, DType::fp8_e4m3)};
  mm.perf_mode = MatmulPerfMode::double_row;
  return mm;
}
params::TargetLimits with_double_row() {
  params::TargetLimits l = trn1_limits();
  l.matmul_double_row_speedup = 2;  // trn2's
  return l;
}

TEST_CASE("validate: matmul perf_mode double_row", "[validate]") {
  // trn1 has no performance mode (NKI nc_matmul: not supported on NeuronCore-v2).
  expect_one(with(Engine::tensor, double_row_matmul()),
             "perf_mode double_row is not available on this target");
  expect_none(with(Engine::tensor, double_row_matmul()), with_double_row());
  // e4m3 with e5m2 is allowed (Trainium2 guide); bf16 is not the FP8 mode.
  auto mm = double_row_matmul();
  mm.moving.dtype = DType::fp8_e5m2;
  expect_none(with(Engine::tensor, mm), with_double_row());
  mm = double_row_matmul();
  mm.stationary.dtype = DType::bf16;
  expect_one(with(Engine::tensor, mm), "stationary is bf16; perf_mode double_row is the FP8",
             with_double_row());
  // An odd free size cannot be [2, F/2].
  mm = double_row_matmul();
  mm.moving.dims[0].size = 511;
  mm.dst.dims[0].size = 255;
  expect_one(with(Engine::tensor, mm), "has an odd free size", with_double_row());
  // M and N are per row: [128, 2, 64] has M = 64, over a matmul_max_m of 32.
  params::TargetLimits small_m = with_double_row();
  small_m.matmul_max_m = 32;
  expect_one(with(Engine::tensor, double_row_matmul()),
             "M = stationary free size / 2 64 exceeds matmul_max_m 32", small_m);
  // dst is [M, N] per row: [64, 512] is not [64, 256].
  mm = double_row_matmul();
  mm.dst = psum(kPs, 64, 512);
  expect_one(with(Engine::tensor, mm), "is not [M,N] = [64,256]", with_double_row());
}

TEST_CASE("validate: matmul accepted input dtypes", "[validate]") {
  expect_none(with(Engine::tensor, valid_matmul()));
  auto mm = valid_matmul();
  mm.stationary.dtype = DType::fp8_e4m3;
  mm.moving.dtype = DType::fp8_e5m2;
  expect_none(with(Engine::tensor, mm));
  mm.stationary = sbuf(kX, 128, 128, DType::tf32);
  mm.moving = sbuf(kY, 128, 512, DType::tf32);
  expect_none(with(Engine::tensor, mm));
  mm.stationary.dtype = mm.moving.dtype = DType::fp32;
  expect_none(with(Engine::tensor, mm));
  mm.stationary.dtype = DType::fp16;  // fp16 with bf16
  mm.moving = sbuf(kW, 128, 512, DType::bf16);
  expect_none(with(Engine::tensor, mm));
  // NKI nc_matmul: the inputs "can have different data types": bf16 with fp8, tf32 with fp32.
  mm = valid_matmul();
  mm.moving.dtype = DType::fp8_e4m3;
  expect_none(with(Engine::tensor, mm));
  mm.stationary = sbuf(kX, 128, 128, DType::tf32);
  mm.moving = sbuf(kY, 128, 512, DType::fp32);
  expect_none(with(Engine::tensor, mm));
}

TEST_CASE("validate: matmul tf32/fp32 only with tf32/fp32", "[validate]") {
  auto mm = valid_matmul();
  mm.stationary = sbuf(kX, 128, 128, DType::fp32);
  expect_one(with(Engine::tensor, mm), "a tf32/fp32 input needs a tf32/fp32 partner");
  mm = valid_matmul();
  mm.moving = sbuf(kY, 128, 512, DType::tf32);
  expect_one(with(Engine::tensor, mm), "stationary bf16 and moving tf32 mix");
}

TEST_CASE("validate: matmul integer inputs", "[validate]") {
  auto mm = valid_matmul();
  mm.stationary.dtype = DType::int16;
  expect_one(with(Engine::tensor, mm), "stationary dtype int16 is not a matmul input");
}

TEST_CASE("validate: matmul dst in psum and fp32", "[validate]") {
  auto mm = valid_matmul();
  mm.dst = sbuf(kX, 128, 512);
  expect_one(with(Engine::tensor, mm), "dst must be in psum, not sbuf");
  mm = valid_matmul();
  mm.dst.dtype = DType::bf16;
  expect_one(with(Engine::tensor, mm), "dst is bf16, but matmul accumulates fp32 in psum");
}

TEST_CASE("validate: matmul inputs in sbuf", "[validate]") {
  Kernel k = base_kernel();
  auto mm = valid_matmul();
  mm.moving = psum(kPs2, 128, 512);
  mm.moving.dtype = DType::bf16;
  k.stream(Engine::tensor).push_back(instr(mm));
  expect_one(k, "moving must be in sbuf, not psum");
}

TEST_CASE("validate: matmul contraction partitions must match", "[validate]") {
  auto mm = valid_matmul();
  mm.moving.partitions = 64;
  expect_one(with(Engine::tensor, mm),
             "stationary and moving partition counts (contraction K) differ: 128 vs 64");
}

TEST_CASE("validate: matmul K, M, N limits", "[validate]") {
  auto limits = trn1_limits();
  limits.matmul_max_k = 64;
  expect_one(with(Engine::tensor, valid_matmul()), "contraction K = 128 exceeds matmul_max_k 64",
             limits);
  limits = trn1_limits();
  limits.matmul_max_m = 64;
  expect_one(with(Engine::tensor, valid_matmul()),
             "M = stationary free size 128 exceeds matmul_max_m 64", limits);
  limits = trn1_limits();
  limits.matmul_max_n = 256;
  expect_one(with(Engine::tensor, valid_matmul()),
             "N = moving free size 512 exceeds matmul_max_n 256", limits);
}

TEST_CASE("validate: matmul dst must be [M,N]", "[validate]") {
  auto mm = valid_matmul();
  mm.dst = psum(kPs, 64, 512);
  expect_one(with(Engine::tensor, mm), "dst [64,512] is not [M,N] = [128,512]");
  mm.dst = psum(kPs, 128, 256);
  expect_one(with(Engine::tensor, mm), "dst [128,256] is not [M,N] = [128,512]");
}

TEST_CASE("validate: tensor-engine transpose", "[validate]") {
  Transpose t{psum(kPs, 64, 128), sbuf(kX, 128, 64)};
  expect_none(with(Engine::tensor, t));
  t.src = sbuf(kX, 64, 128);  // dst must then be [128,64]
  expect_one(with(Engine::tensor, t), "dst [64,128] is not src [64,128] transposed");
  Transpose from_psum{sbuf(kY, 64, 128), psum(kPs, 128, 64)};
  const auto d = check(with(Engine::tensor, from_psum), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK_THAT(d[0].reason, Catch::Contains("src must be in sbuf, not psum"));
  CHECK_THAT(d[1].reason, Catch::Contains("dst must be in psum, not sbuf"));
  // The edge is tensor_transpose_max, not the matmul limits.
  auto limits = trn1_limits();
  limits.tensor_transpose_max = 64;
  t = Transpose{psum(kPs, 64, 128), sbuf(kX, 128, 64)};
  expect_one(with(Engine::tensor, t), "src [128,64] exceeds the tensor engine's 64x64 transpose",
             limits);
  limits = trn1_limits();
  limits.matmul_max_k = limits.matmul_max_m = 64;
  expect_none(with(Engine::tensor, t), limits);
}

TEST_CASE("validate: vector-engine transpose", "[validate]") {
  Transpose t{sbuf(kY, 32, 32), sbuf(kX, 32, 32)};
  expect_none(with(Engine::vector, t));
  t = Transpose{sbuf(kY, 32, 64), sbuf(kX, 64, 32)};
  expect_one(with(Engine::vector, t), "src [64,32] exceeds the vector engine's 32x32 transpose");
}

TEST_CASE("validate: activation shapes and per-partition vectors", "[validate]") {
  Activation a{sbuf(kY, 128, 512), sbuf(kX, 128, 512), ActFunc::exp, vec(), vec(), vec()};
  expect_none(with(Engine::scalar, a));
  auto bad = a;
  bad.dst = sbuf(kY, 128, 256);
  expect_one(with(Engine::scalar, bad), "dst [128,256] and src [128,512] differ in shape");
  bad = a;
  bad.bias = vec(64);
  expect_one(with(Engine::scalar, bad), "bias [64,1] is not a [128,1] per-partition vector");
  bad = a;
  bad.scale = sbuf(kX, 128, 2);
  expect_one(with(Engine::scalar, bad), "scale [128,2] is not a [128,1] per-partition vector");
  bad = a;
  bad.reduce_dst = sbuf(kX, 128, 4);
  expect_one(with(Engine::scalar, bad), "reduce_dst [128,4] is not a [128,1]");
}

TEST_CASE("validate: tensor_tensor shapes", "[validate]") {
  TensorTensor t{sbuf(kY, 128, 512), sbuf(kX, 128, 512), psum(kPs, 128, 512), AluOp::add};
  expect_none(with(Engine::vector, t));
  t.b = psum(kPs, 128, 256);
  expect_one(with(Engine::vector, t), "dst [128,512] and b [128,256] differ in shape");
}

TEST_CASE("validate: tensor_tensor not both inputs in psum", "[validate]") {
  TensorTensor t{sbuf(kY, 128, 512), psum(kPs2, 128, 512), psum(kPs, 128, 512), AluOp::add};
  expect_one(with(Engine::vector, t), "a and b are both in psum");
}

TEST_CASE("validate: bitwise ops only on integer dtypes", "[validate]") {
  TensorTensor t{sbuf(kInt, 128, 512, DType::int32), sbuf(kInt, 128, 512, DType::int32),
                 sbuf(kInt, 128, 512, DType::int32), AluOp::bitwise_xor};
  expect_none(with(Engine::vector, t));
  t.b = sbuf(kX, 128, 512);
  expect_one(with(Engine::vector, t), "op bitwise_xor needs integer dtypes, but b is fp32");
  auto ts = tensor_scalar(sbuf(kY, 128, 512), sbuf(kX, 128, 512), AluOp::logical_shift_left, 1.0f);
  const auto d = check(with(Engine::vector, ts), trn1_limits());
  REQUIRE(d.size() == 2);  // dst and src
  CHECK_THAT(d[0].reason, Catch::Contains("op logical_shift_left needs integer dtypes"));
}

TEST_CASE("validate: scalar_tensor_tensor takes arithmetic operators only", "[validate]") {
  // NKI scalar_tensor_tensor: "Bitvec operators are not supported".
  ScalarTensorTensor stt{sbuf(kInt, 128, 512, DType::int32),
                         sbuf(kInt, 128, 512, DType::int32),
                         sbuf(kInt, 128, 512, DType::int32),
                         3.0f,
                         AluOp::bitwise_and,
                         AluOp::add};
  expect_one(with(Engine::vector, stt), "op0 bitwise_and is a bitvec operator");
  stt.op0 = AluOp::add;
  stt.op1 = AluOp::bitwise_or;
  expect_one(with(Engine::vector, stt), "op1 bitwise_or is a bitvec operator");
  stt.op1 = AluOp::max;
  expect_none(with(Engine::vector, stt));
}

TEST_CASE("validate: tensor_scalar operands", "[validate]") {
  auto t = tensor_scalar(sbuf(kY, 128, 512), sbuf(kX, 128, 512), AluOp::multiply, vec());
  t.op1 = AluOp::add;
  t.arg1 = 2.0f;
  expect_none(with(Engine::vector, t));
  auto bad = t;
  bad.arg0 = sbuf(kX, 128, 4);
  expect_one(with(Engine::vector, bad), "arg0 [128,4] is not a [128,1] per-partition vector");
  bad = t;
  bad.arg1 = vec(32);
  expect_one(with(Engine::vector, bad), "arg1 [32,1] is not a [128,1]");
  // With a reduction (NKI tensor_scalar_reduce): one operator.
  t.op1.reset();
  t.reduce_dst = vec();
  t.reduce_op = AluOp::max;
  expect_none(with(Engine::vector, t));
  bad = t;
  bad.reduce_op = AluOp::divide;
  expect_one(with(Engine::vector, bad), "reduce_op divide is not a reduction");
  bad = t;
  bad.src = sbuf(kX, 64, 512);
  bad.reduce_dst.reset();
  bad.arg0 = 1.0f;
  expect_one(with(Engine::vector, bad), "dst [128,512] and src [64,512] differ in shape");
}

TEST_CASE("validate: scalar_tensor_tensor operands", "[validate]") {
  ScalarTensorTensor t{sbuf(kY, 128, 512), sbuf(kX, 128, 512), psum(kPs, 128, 512), vec()};
  expect_none(with(Engine::vector, t));
  t.scalar = sbuf(kX, 128, 3);
  expect_one(with(Engine::vector, t), "scalar [128,3] is not a [128,1] per-partition vector");
  t.scalar = 1.0f;
  t.a = sbuf(kX, 128, 511);
  expect_one(with(Engine::vector, t), "dst [128,512] and a [128,511] differ in shape");
}

TEST_CASE("validate: tensor_reduce axes and dst", "[validate]") {
  auto src = sbuf(kX, 128, 1);
  src.ndims = 2;
  src.dims[0] = {128, 4};
  src.dims[1] = {1, 128};
  TensorReduce t{sbuf(kY, 128, 4), src, AluOp::max, 1};
  expect_none(with(Engine::vector, t));
  t.dst = sbuf(kY, 128, 1);
  t.axes = 2;
  expect_none(with(Engine::vector, t));
  t.axes = 3;
  expect_one(with(Engine::vector, t), "axes 3 is not in 1..2 (src's free dims)");
  t.axes = 1;
  expect_one(with(Engine::vector, t), "dst [128,1] is not [128,4]");
  t.dst = sbuf(kY, 128, 4);
  t.op = AluOp::subtract;
  expect_one(with(Engine::vector, t), "op subtract is not a reduction");
}

TEST_CASE("validate: tensor_copy and select shapes", "[validate]") {
  expect_one(with(Engine::vector, TensorCopy{sbuf(kY, 128, 4), sbuf(kX, 128, 8)}),
             "differ in shape");
  Select s{sbuf(kY, 128, 16), sbuf(kX, 128, 16), sbuf(kX, 128, 16), psum(kPs, 128, 16)};
  expect_none(with(Engine::vector, s));
  s.on_false = psum(kPs, 128, 15);
  expect_one(with(Engine::vector, s), "dst [128,16] and on_false [128,15] differ in shape");
}

TEST_CASE("validate: affine_select compares", "[validate]") {
  AffineSelect a{sbuf(kY, 128, 128), sbuf(kX, 128, 128)};
  a.partition_step = 1;
  a.steps[0] = -1;
  expect_none(with(Engine::gpsimd, a));
  a.cmp = AluOp::add;
  expect_one(with(Engine::gpsimd, a), "cmp add is not a comparison");
}

TEST_CASE("validate: bn_stats sizes", "[validate]") {
  BnStats b{sbuf(kY, 128, 6), sbuf(kX, 128, 512)};
  expect_none(with(Engine::vector, b));
  auto limits = trn1_limits();
  limits.bn_stats_max_free = 256;
  expect_one(with(Engine::vector, b), "src free size 512 exceeds bn_stats_max_free 256", limits);
  b.dst = sbuf(kY, 128, 4);
  expect_one(with(Engine::vector, b), "dst [128,4] is not [128,6]");
}

TEST_CASE("validate: bn_aggr sizes", "[validate]") {
  BnAggr b{sbuf(kY, 128, 2), sbuf(kX, 128, 12)};
  expect_none(with(Engine::vector, b));
  b.src = sbuf(kX, 128, 10);
  expect_one(with(Engine::vector, b), "src free size 10 is not a multiple of 3");
  b.src = sbuf(kX, 128, 12);
  b.dst = sbuf(kY, 128, 3);
  expect_one(with(Engine::vector, b), "dst [128,3] is not [128,2]");
}

TEST_CASE("validate: gpsimd never touches psum", "[validate]") {
  TensorCopy c{sbuf(kY, 128, 512), psum(kPs, 128, 512)};
  expect_none(with(Engine::vector, c));
  expect_one(with(Engine::gpsimd, c), "src: the gpsimd engine cannot access psum");
}

TEST_CASE("validate: dma_copy rules", "[validate]") {
  DmaCopy d{sbuf(kX, 128, 512), hbm(kIn, 128, 512), 0,    false, false,
            std::nullopt,       std::nullopt,       false};
  expect_none(with(Engine::sync, d));
  DmaCopy reshape{sbuf(kX, 128, 256), hbm(kIn, 64, 512), 0,    false, false,
                  std::nullopt,       std::nullopt,      false};  // 32768 either way
  expect_none(with(Engine::sync, reshape));
  auto bad = d;
  bad.dst = sbuf(kX, 128, 256);
  expect_one(with(Engine::sync, bad), "dst has 32768 elements, src 65536");
  bad = d;
  bad.dst = psum(kPs, 128, 512);
  expect_one(with(Engine::sync, bad), "dma_copy cannot access psum");
  bad = d;
  bad.queue = 1;
  expect_one(with(Engine::sync, bad), "queue index 1 is out of range (the kernel has 1 queues)");
  bad = d;
  bad.dst = sbuf(kInt, 128, 512, DType::int32);
  expect_none(with(Engine::sync, bad));  // casting copy
  // NKI dma_copy: dst_rmw_op adds in fp32 and casts to dst's dtype, whatever it is.
  bad.accumulate = true;
  expect_none(with(Engine::sync, bad));
}

TEST_CASE("validate: dma_copy transpose rules", "[validate]") {
  // NKI dma_transpose: 2-byte dtypes, on NeuronCore-v3+ (dma.transpose); nki-arch-v3 gives
  // its rates into SBUF (from HBM or SBUF).
  params::TargetLimits v3 = trn1_limits();
  v3.dma_transpose = true;
  auto kernel = [](Operation op) {
    Kernel k = with(Engine::sync, std::move(op));
    k.tensors.push_back({"b", DType::bf16, {64, 128}, TensorRole::input, {}});  // tensor 3
    return k;
  };
  DmaCopy t{sbuf(kW, 128, 64, DType::bf16),
            hbm(3, 64, 128, DType::bf16),
            0,
            false,
            false,
            std::nullopt,
            std::nullopt,
            false};
  t.transpose = true;
  expect_none(kernel(t), v3);
  expect_one(kernel(t), "this target's DMA engines do not transpose");  // trn1
  auto from_sbuf = t;  // SBUF [128, 64] -> [64, 128]
  from_sbuf.src = sbuf(kW, 128, 64, DType::bf16);
  from_sbuf.dst = sbuf(kW, 64, 128, DType::bf16);
  expect_none(kernel(from_sbuf), v3);
  auto bad = t;
  bad.dst = sbuf(kW, 64, 128, DType::bf16);  // an untransposed shape
  expect_one(kernel(bad), "dst [64,128] is not src [64,128] transposed ([128,64])", v3);
  bad = t;
  bad.accumulate = true;
  expect_one(kernel(bad), "does not accumulate", v3);
  DmaCopy wide{sbuf(kX, 128, 128), hbm(kIn, 128, 128), 0,    false, false,
               std::nullopt,       std::nullopt,       false};  // fp32
  wide.transpose = true;
  expect_one(kernel(wide), "transposes 2-byte dtypes", v3);
  bad = t;
  bad.dst = sbuf(kX, 128, 64);
  expect_one(kernel(bad), "a DMA transpose does not cast", v3);
  DmaCopy store{hbm(3, 64, 128, DType::bf16),
                sbuf(kW, 128, 64, DType::bf16),
                0,
                false,
                false,
                std::nullopt,
                std::nullopt,
                false};
  store.transpose = true;
  expect_one(kernel(store), "dst is in hbm; a DMA transpose writes sbuf", v3);
}

TEST_CASE("validate: gathering transpose rules", "[validate]") {
  // NKI dma_transpose, "DMA Indirect Transpose" (software DGE): a gather (src_index, issued
  // by GpSimd) whose rows land as dst's columns, under the transpose's rules (2-byte, no
  // cast, into SBUF, NeuronCore-v3+).
  params::TargetLimits v3 = trn1_limits();
  v3.dma_transpose = true;
  auto kernel = [](Operation op) {
    Kernel k = with(Engine::gpsimd, std::move(op));
    k.tensors.push_back({"b", DType::bf16, {300, 64}, TensorRole::input, {}});  // tensor 3
    return k;
  };
  DmaCopy g{sbuf(kW, 64, 32, DType::bf16),
            hbm(3, 300, 64, DType::bf16),
            0,
            false,
            true,
            sbuf(kInt, 32, 1, DType::uint32),
            std::nullopt,
            false};
  expect_none(kernel(g), v3);
  expect_one(kernel(g), "this target's DMA engines do not transpose");  // trn1
  auto bad = g;
  bad.src_index = sbuf(kInt, 64, 1, DType::uint32);  // one per dst partition: wrong
  expect_one(kernel(bad), "src_index [64,1] is not [32,1] (one row index per column of dst)", v3);
  bad = g;
  bad.dst = sbuf(kW, 32, 32, DType::bf16);
  expect_one(kernel(bad), "src rows of 64 elements differ from dst's 32 partitions", v3);
  bad = g;
  bad.dst = sbuf(kX, 64, 32);
  expect_one(kernel(bad), "a DMA transpose does not cast", v3);
  DmaCopy s{hbm(3, 300, 64, DType::bf16),
            sbuf(kW, 32, 64, DType::bf16),
            0,
            false,
            true,
            std::nullopt,
            sbuf(kInt, 32, 1, DType::uint32),
            false};
  // (Also wrong as a transpose: it writes hbm. Each rule says its own.)
  CHECK_THAT(listing(check(kernel(s), v3)), Catch::Contains("it does not scatter"));
}

TEST_CASE("validate: tensor_tensor_scan operands", "[validate]") {
  // NKI tensor_tensor_scan: data0 and data1 of one shape, not both in PSUM; initial a
  // scalar or [P,1]; arithmetic operators only; Vector Engine only.
  TensorTensorScan t{sbuf(kY, 128, 512), sbuf(kX, 128, 512), psum(kPs, 128, 512)};
  t.initial = vec();
  expect_none(with(Engine::vector, t));
  auto bad = t;
  bad.data1 = sbuf(kX, 128, 511);
  expect_one(with(Engine::vector, bad), "dst [128,512] and data1 [128,511] differ in shape");
  bad = t;
  bad.initial = sbuf(kX, 128, 2);
  expect_one(with(Engine::vector, bad), "initial [128,2] is not a [128,1] per-partition vector");
  bad = t;
  bad.data0 = psum(kPs2, 128, 512);
  expect_one(with(Engine::vector, bad), "data0 and data1 are both in psum");
  bad = t;
  bad.op1 = AluOp::bitwise_xor;
  expect_one(with(Engine::vector, bad), "op1 bitwise_xor is a bitvec operator");
  expect_one(with(Engine::gpsimd,
                  TensorTensorScan{sbuf(kY, 128, 512), sbuf(kX, 128, 512), sbuf(kX, 128, 512)}),
             "opcode tensor_tensor_scan cannot run on the gpsimd engine");
}

TEST_CASE("validate: reciprocal, tensor_partition_reduce and dropout operands", "[validate]") {
  // NKI reciprocal: dst and data of one shape, SBUF or PSUM; Vector Engine only.
  expect_none(with(Engine::vector, Reciprocal{psum(kPs, 128, 512), sbuf(kX, 128, 512)}));
  expect_one(with(Engine::vector, Reciprocal{sbuf(kY, 128, 256), sbuf(kX, 128, 512)}),
             "dst [128,256] and src [128,512] differ in shape");
  expect_one(with(Engine::scalar, Reciprocal{sbuf(kY, 128, 512), sbuf(kX, 128, 512)}),
             "opcode reciprocal cannot run on the scalar engine");

  // NKI tensor_partition_reduce: GpSimd, dst one partition of src's free size.
  PartitionReduce pr{sbuf(kY, 1, 512), sbuf(kX, 128, 512), AluOp::max};
  expect_none(with(Engine::gpsimd, pr));
  auto bad = pr;
  bad.dst = sbuf(kY, 2, 512);
  expect_one(with(Engine::gpsimd, bad), "dst [2,512] is not [1,512]");
  bad = pr;
  bad.op = AluOp::multiply;
  expect_one(with(Engine::gpsimd, bad), "op multiply is not a partition reduction");
  bad = pr;
  bad.op = AluOp::bitwise_and;
  bad.dst = sbuf(kInt, 1, 512, DType::int32);
  expect_one(with(Engine::gpsimd, bad), "op bitwise_and needs integer dtypes, but src is fp32");
  bad = pr;
  bad.src = psum(kPs, 128, 512);
  expect_one(with(Engine::gpsimd, bad), "src: the gpsimd engine cannot access psum");
  expect_one(with(Engine::vector, pr), "opcode tensor_partition_reduce cannot run on the vector");

  // NKI dropout: prob an immediate in [0, 1] or a [P,1] float vector; integer data keep
  // their dtype and take an fp32 prob.
  Dropout d{sbuf(kY, 128, 512), sbuf(kX, 128, 512), vec(), 7};
  expect_none(with(Engine::vector, d));
  auto bd = d;
  bd.prob = 1.5f;
  expect_one(with(Engine::vector, bd), "prob 1.500000 is not a probability in [0, 1]");
  bd = d;
  bd.prob = sbuf(kVec, 64, 1);
  expect_one(with(Engine::vector, bd), "prob [64,1] is not a [128,1] per-partition vector");
  bd = Dropout{sbuf(kInt, 128, 512, DType::int32), sbuf(kInt, 128, 512, DType::int32),
               sbuf(kW, 128, 1, DType::bf16), 0};
  expect_one(with(Engine::vector, bd), "with integer data (int32) it must be fp32");
  bd.prob = 0.5f;
  bd.dst = sbuf(kX, 128, 512);
  expect_one(with(Engine::vector, bd), "dropout of integer data keeps its dtype");
}

TEST_CASE("validate: max8, nc_find_index8 and nc_match_replace8 operands", "[validate]") {
  // NKI max8 / nc_find_index8: 8..16384 elements per partition, [P, 8] results;
  // nc_find_index8 writes uint16/uint32; nc_match_replace8: dst of data's shape.
  expect_none(with(Engine::vector, Max8{sbuf(kY, 128, 8), sbuf(kX, 128, 512)}));
  expect_one(with(Engine::vector, Max8{sbuf(kY, 128, 8), sbuf(kX, 128, 4)}),
             "src has 4 elements per partition; between 8 and 16384 are allowed");
  expect_one(with(Engine::vector, Max8{sbuf(kY, 128, 16), sbuf(kX, 128, 512)}),
             "dst [128,16] is not [128,8]");
  FindIndex8 f{sbuf(kInt, 128, 8, DType::int32), sbuf(kX, 128, 512), sbuf(kY, 128, 8)};
  expect_one(with(Engine::vector, f), "dst is int32; nc_find_index8 writes uint16 or uint32");
  MatchReplace8 m{sbuf(kY, 128, 512), sbuf(kX, 128, 512), sbuf(kY, 128, 8), 0.0f, std::nullopt};
  expect_none(with(Engine::vector, m));
  m.dst = sbuf(kY, 128, 256);
  expect_one(with(Engine::vector, m), "dst [128,256] and data [128,512] differ in shape");
  expect_one(with(Engine::gpsimd, Max8{sbuf(kY, 128, 8), sbuf(kX, 128, 512)}),
             "opcode max8 cannot run on the gpsimd engine");
}

TEST_CASE("validate: indirect dma_copy rules", "[validate]") {
  // NKI dma_copy: software DGE (GpSimd) gathers or scatters "using a list of dynamic
  // indices from SBUF": a [P,1] int32/uint32 column, rows of an HBM tensor.
  DmaCopy g{sbuf(kX, 64, 512), hbm(kIn, 128, 512), 0,    false, false,
            std::nullopt,      std::nullopt,       false};
  g.src_index = sbuf(kInt, 64, 1, DType::int32);
  expect_none(with(Engine::gpsimd, g));
  expect_one(with(Engine::sync, g), "an indirect dma_copy is issued by gpsimd");
  DmaCopy s{hbm(kOut, 128, 512), sbuf(kX, 64, 512), 0,    false, false,
            std::nullopt,        std::nullopt,      false};
  s.dst_index = sbuf(kInt, 64, 1, DType::int32);
  s.accumulate = true;
  expect_none(with(Engine::gpsimd, s));
  auto bad = g;
  bad.src_index = sbuf(kInt, 32, 1, DType::int32);
  expect_one(with(Engine::gpsimd, bad), "src_index [32,1] is not [64,1]");
  bad = g;
  bad.src_index = sbuf(kX, 64, 1);
  expect_one(with(Engine::gpsimd, bad), "src_index is fp32; row indices are int32 or uint32");
  bad = g;
  bad.dst = sbuf(kX, 64, 256);
  expect_one(with(Engine::gpsimd, bad), "src rows of 512 elements differ from dst's 256");
  bad = g;
  bad.src = sbuf(kY, 128, 512);
  expect_one(with(Engine::gpsimd, bad),
             "src is in sbuf; an indirect dma_copy indexes rows of an hbm");
  bad = g;
  bad.dst_index = s.dst_index;
  expect_one(with(Engine::gpsimd, bad), "src_index and dst_index are both given");
  // NKI dma_copy, oob_mode.skip: indirect access only, and not with dst_rmw_op.
  auto skip = g;
  skip.oob_skip = true;
  expect_none(with(Engine::gpsimd, skip));
  skip = s;
  skip.oob_skip = true;
  expect_one(with(Engine::gpsimd, skip), "oob_skip: an accumulating dma_copy");
  DmaCopy direct{sbuf(kX, 128, 512), hbm(kIn, 128, 512), 0,   false, false,
                 std::nullopt,       std::nullopt,       true};
  expect_one(with(Engine::sync, direct), "oob_skip: only an indirect dma_copy");
  // NKI's DGE reference: prebuilt descriptors (dge_mode none) for direct transfers only.
  direct.oob_skip = false;
  direct.prebuilt_descriptors = true;
  expect_none(with(Engine::sync, direct));
  auto prebuilt_gather = g;
  prebuilt_gather.prebuilt_descriptors = true;
  expect_one(with(Engine::gpsimd, prebuilt_gather),
             "prebuilt_descriptors: an indirect dma_copy's descriptors depend on its runtime");
}

TEST_CASE("validate: a bf16 matmul dst is NeuronCore-v4's", "[validate]") {
  // NKI nc_matmul, "Data types": "The dst tile must be a float32 tile in NeuronCore-v2 and
  // NeuronCore-v3. Starting NeuronCore-v4, dst can either be a float32 or bfloat16 tile."
  // dst [128, 1024] bf16 (2 KiB per partition: one bank) = wt^T @ xt viewed as bf16.
  const Matmul mm{on_chip(MemSpace::psum, kPs, 128, 1024, DType::bf16),
                  sbuf(kW, 128, 128, DType::bf16), sbuf(kX, 128, 1024, DType::bf16)};
  params::TargetLimits v4 = trn1_limits();
  v4.matmul_bf16_dst = true;  // trn3.json tensor.matmul_bf16_dst
  expect_none(with(Engine::tensor, mm), v4);
  // trn1 / trn2: refused, and N = 1024 is beyond the fp32 bank's 512.
  const auto d = check(with(Engine::tensor, mm), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK_THAT(d[0].reason, Catch::Contains("dst is bf16, but matmul accumulates fp32 in psum (a "
                                          "bf16 dst is NeuronCore-v4's: tensor.matmul_bf16_dst "
                                          "is false)"));
  CHECK_THAT(d[1].reason, Catch::Contains("N = moving free size 1024 exceeds matmul_max_n 512"));
  // Other dtypes stay refused on v4 (and have the fp32 bank's N: 1024 is too many).
  Matmul fp16 = mm;
  fp16.dst.dtype = DType::fp16;
  const auto f = check(with(Engine::tensor, fp16), v4);
  INFO(listing(f));
  REQUIRE(f.size() == 2);
  CHECK_THAT(f[0].reason, Catch::Contains("dst is fp16, but matmul accumulates fp32 in psum"));
}

TEST_CASE("validate: a matmul's moving size spans PSUM banks from NeuronCore-v4", "[validate]") {
  // NKI nc_matmul, "Tile size": "On NeuronCore-v2 and -v3, the free dimension size of moving
  // tile must not exceed 512 ... Starting NeuronCore-v4, ... up to 4096 for float32 dst or
  // 8192 for bfloat16 dst, matching the size of 8x PSUM banks (the entire PSUM)."
  // The fixture's PSUM allocations give way to one of the whole PSUM partition as fp32
  // (16 KiB), and allocation 7 is a [128, 8192] bf16 moving tile in SBUF (16 KiB per
  // partition, from byte 8192).
  auto kernel_of = [](std::uint32_t n, std::uint32_t psum_offset_elems, DType dst = DType::fp32) {
    AccessPattern out = on_chip(MemSpace::psum, kPs, 128, n, dst);
    out.byte_offset = psum_offset_elems * dtype_size(dst);
    Kernel k = with(Engine::tensor,
                    Matmul{out, sbuf(kW, 128, 128, DType::bf16), sbuf(7, 128, n, DType::bf16)});
    k.allocations[kPs] = alloc("pall", MemSpace::psum, DType::fp32, 4096, 0);
    k.allocations[kPs2] = alloc("spare", MemSpace::sbuf, DType::fp32, 1, 7172);
    k.allocations.push_back(alloc("mv", MemSpace::sbuf, DType::bf16, 8192, 8192));
    return k;
  };
  params::TargetLimits v4 = trn1_limits();
  v4.matmul_psum_banks = 8;  // trn3.json tensor.matmul_psum_banks
  v4.matmul_bf16_dst = true;
  // 4096 fp32 = 16 KiB per partition: all 8 banks; 2048 from byte 0: banks 0-3.
  expect_none(kernel_of(4096, 0), v4);
  expect_none(kernel_of(2048, 0), v4);
  // 1024 fp32 (4 KiB, 2 banks' worth) from byte 1024 touches banks 0, 1 and 2: one more
  // than its size needs.
  expect_one(kernel_of(1024, 256),
             "psum bytes [1024, 5120) touch 3 2048-byte banks (the "
             "result needs 2)",
             v4);
  // 512 fp32 (one bank) from byte 1024 still may not cross a bank boundary on v4.
  expect_one(kernel_of(512, 256), "touch 2 2048-byte banks (the result needs 1)", v4);
  // 8192 bf16 (the page's bf16 limit) fills PSUM too; one more is refused.
  expect_none(kernel_of(8192, 0, DType::bf16), v4);
  // trn1 / trn2: one bank, 512 fp32.
  const auto d = check(kernel_of(2048, 0), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK_THAT(d[1].reason, Catch::Contains("N = moving free size 2048 exceeds matmul_max_n 512"));
  CHECK_THAT(d[0].reason, Catch::Contains("psum bytes [0, 8192) cross a 2048-byte bank boundary"));
  const auto e = check(kernel_of(4096, 0), [] {
    params::TargetLimits l = trn1_limits();
    l.matmul_psum_banks = 4;
    return l;
  }());
  INFO(listing(e));
  REQUIRE(e.size() == 2);
  CHECK_THAT(
      e[1].reason,
      Catch::Contains("N = moving free size 4096 exceeds matmul_max_n 512 x matmul_psum_banks 4"));
  CHECK_THAT(e[0].reason, Catch::Contains("touch 8 2048-byte banks (at most matmul_psum_banks 4)"));
}

TEST_CASE("validate: fp8_e4m3fn matmul inputs are NeuronCore-v4's, unmixed with fp8_e4m3",
          "[validate]") {
  // NKI nc_matmul, "Data types": "Starting NeuronCore-v4, float8_e4m3fn (OCP FP8) is also
  // supported; float8_e4m3 (legacy) and float8_e4m3fn cannot be mixed in the same matmul";
  // double_row takes "float8_e4m3 or float8_e5m2 (plus float8_e4m3fn on NeuronCore-v4)".
  params::TargetLimits v4 = trn1_limits();
  v4.fp8_e4m3fn = true;              // trn3.json limits.fp8_e4m3fn
  v4.matmul_double_row_speedup = 2;  // trn3.json tensor.double_row_speedup
  auto mm = [](DType s, DType m) {
    return Matmul{psum(kPs, 128, 512), sbuf(kW, 128, 128, s), sbuf(kX, 128, 512, m)};
  };
  expect_none(with(Engine::tensor, mm(DType::fp8_e4m3fn, DType::fp8_e4m3fn)), v4);
  expect_none(with(Engine::tensor, mm(DType::fp8_e4m3fn, DType::fp8_e5m2)), v4);
  expect_none(with(Engine::tensor, mm(DType::bf16, DType::fp8_e4m3fn)), v4);
  expect_one(with(Engine::tensor, mm(DType::fp8_e4m3, DType::fp8_e4m3fn)),
             "stationary fp8_e4m3 and moving fp8_e4m3fn mix legacy fp8_e4m3 with OCP "
             "fp8_e4m3fn",
             v4);
  Matmul dr = mm(DType::fp8_e4m3fn, DType::fp8_e5m2);
  dr.perf_mode = MatmulPerfMode::double_row;
  dr.dst = psum(kPs, 64, 256);  // [K, 2, M] x [K, 2, N]: M = 64, N = 256 per row
  expect_none(with(Engine::tensor, dr), v4);
  // Where fp8_e4m3fn is not a dtype (trn1, trn2) it is refused, as for every instruction.
  const auto d =
      check(with(Engine::tensor, mm(DType::fp8_e4m3fn, DType::fp8_e4m3fn)), trn1_limits());
  INFO(listing(d));
  CHECK_FALSE(d.empty());
}
