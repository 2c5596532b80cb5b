// The field kinds (isa/field_kind.hpp): one C++ type per meaning, each with its trait in
// every layer, and the two equalities (values for Instruction's ==, bits for the printer).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "isa/field_kind.hpp"
#include "isa/for_each_field.hpp"

using namespace neuronsim::isa;

// The settings that used to be bare integers are kinds of their own, as wide as before.
static_assert(!std::is_same_v<Axes, std::uint8_t> && sizeof(Axes) == 1);
static_assert(!std::is_same_v<QueueRef, std::uint16_t> && sizeof(QueueRef) == 2);
static_assert(!std::is_same_v<Steps, std::array<std::int32_t, kMaxFreeDims>> &&
              sizeof(Steps) == sizeof(std::int32_t) * kMaxFreeDims);
static_assert(std::is_same_v<decltype(TensorReduce::axes), Axes>);
static_assert(std::is_same_v<decltype(DmaCopy::queue), QueueRef>);
static_assert(std::is_same_v<decltype(Iota::steps), Steps> &&
              std::is_same_v<decltype(AffineSelect::steps), Steps>);
static_assert(is_field_kind<Axes>(FieldKinds{}) && !is_field_kind<std::uint8_t>(FieldKinds{}));

TEST_CASE("field kinds: immediates are equal as values, identical as bits", "[isa]") {
  using F = FieldKind<float>;
  CHECK(F::equal(0.0f, -0.0f));
  CHECK_FALSE(F::identical(0.0f, -0.0f));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(F::equal(nan, nan));
  CHECK(F::identical(nan, nan));
  using S = FieldKind<ScalarArg>;
  CHECK(S::equal(ScalarArg(0.0f), ScalarArg(-0.0f)));
  CHECK_FALSE(S::identical(ScalarArg(0.0f), ScalarArg(-0.0f)));
  CHECK_FALSE(S::identical(ScalarArg(0.0f), ScalarArg(AccessPattern{})));
  CHECK(FieldKind<double>::equal(0.0, -0.0));
  CHECK_FALSE(FieldKind<double>::identical(0.0, -0.0));

  // So -0 is equal to the default 0 but is printed: it reads back as -0.
  Instruction zero, negative_zero;
  zero.op = Memset{AccessPattern{}, 0.0};
  negative_zero.op = Memset{AccessPattern{}, -0.0};
  CHECK(zero == negative_zero);
}

TEST_CASE("field kinds: axes, queues and steps print and read back as their kind", "[isa]") {
  const Kernel k = assemble(R"(kernel kinds
sbuf x fp32[128, 4, 8]
sbuf v fp32[128, 4]
sbuf n int32[128, 64]
tensor a fp32[128, 32] input
queue first first_engine=0 engines=1
queue second first_engine=1 engines=1
vector:
    tensor_reduce v, x, op=add, axes=1, negate=true
    memset v, value=-0
gpsimd:
    iota n, base=-3, steps=[2, 0, -1]
sync:
    dma_copy x, a, queue=second
)",
                            "kinds.nasm");
  CHECK(std::get<TensorReduce>(k.stream(Engine::vector)[0].op).axes.count == 1);
  CHECK(std::signbit(std::get<Memset>(k.stream(Engine::vector)[1].op).value));
  const Steps steps = std::get<Iota>(k.stream(Engine::gpsimd)[0].op).steps;
  CHECK(steps[0] == 2);
  CHECK(steps[2] == -1);
  CHECK(steps[3] == 0);
  CHECK(std::get<DmaCopy>(k.stream(Engine::sync)[0].op).queue.index == 1);
  const std::string text = print(k);
  CHECK(text.find("tensor_reduce v, x, op=add, negate=true") != std::string::npos);  // axes=1
  CHECK(text.find("memset v, value=-0") != std::string::npos);
  CHECK(text.find("steps=[2, 0, -1]") != std::string::npos);
  CHECK(text.find("queue=second") != std::string::npos);
  CHECK(assemble(text, "printed.nasm") == k);
}
