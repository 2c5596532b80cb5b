#pragma once
// How the assembly language writes each kind of field (isa/field_kind.hpp): one trait
// specialisation per kind, holding its parse (for the assembler, assembler.cpp) and its
// text (for the printer, printer.cpp), so that the two read and write one syntax
// (docs/assembly.md). Whether a value is its default, which the printer leaves out, is
// the kind's own bit-for-bit comparison (isa::FieldKind<T>::identical).
//
// parse(p, value, what) reads one value with the assembler's parser `p` (a template
// parameter: the parser is the assembler's own class) and fails naming `what` ("queue of
// dma_copy"); text(k, value) is the value as the printer writes it.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "asm/syntax.hpp"
#include "base/error.hpp"
#include "isa/field_kind.hpp"
#include "isa/kernel.hpp"
#include "isa/literal.hpp"
#include "isa/view.hpp"

namespace neuronsim::isa::asm_detail {

// "a, b, c": the names of an enum's N values, for messages.
template <typename Enum, int N, typename Name>
std::string choices(Name name) {
  std::string s;
  for (int i = 0; i < N; ++i)
    s += (i ? ", " : "") + std::string(name(static_cast<Enum>(i)));
  return s;
}

template <typename T>
struct AsmField;  // no primary definition: one specialisation per field kind below

// A tensor or allocation, sliced (name[...]), reinterpreted (name.dtype) or raw (name{...}).
template <>
struct AsmField<AccessPattern> {
  template <typename P>
  static void parse(P& p, AccessPattern& v, const std::string& what) {
    v = p.parse_pattern(what);
  }
  static std::string text(const Kernel& k, const AccessPattern& v) { return format_pattern(k, v); }
};
// Given: a pattern; absent: not written.
template <>
struct AsmField<std::optional<AccessPattern>> {
  template <typename P>
  static void parse(P& p, std::optional<AccessPattern>& v, const std::string& what) {
    v = p.parse_pattern(what);
  }
  static std::string text(const Kernel& k, const std::optional<AccessPattern>& v) {
    return format_pattern(k, *v);
  }
};
// A number or a [P,1] pattern.
template <>
struct AsmField<ScalarArg> {
  template <typename P>
  static void parse(P& p, ScalarArg& v, const std::string& what) {
    if (p.at_number())
      v = p.parse_float(what);
    else
      v = p.parse_pattern(what);
  }
  static std::string text(const Kernel& k, const ScalarArg& v) {
    if (const auto* f = std::get_if<float>(&v)) return format_float(*f);
    return format_pattern(k, std::get<AccessPattern>(v));
  }
};
template <>
struct AsmField<float> {
  template <typename P>
  static void parse(P& p, float& v, const std::string& what) {
    v = p.parse_float(what);
  }
  static std::string text(const Kernel&, float v) { return format_float(v); }
};
template <>
struct AsmField<double> {
  template <typename P>
  static void parse(P& p, double& v, const std::string& what) {
    v = p.parse_double(what);
  }
  static std::string text(const Kernel&, double v) { return format_double(v); }
};
template <>
struct AsmField<std::int32_t> {
  template <typename P>
  static void parse(P& p, std::int32_t& v, const std::string& what) {
    v = static_cast<std::int32_t>(p.parse_int(what, std::numeric_limits<std::int32_t>::min(),
                                              std::numeric_limits<std::int32_t>::max()));
  }
  static std::string text(const Kernel&, std::int32_t v) { return std::to_string(v); }
};
// true / false.
template <>
struct AsmField<bool> {
  template <typename P>
  static void parse(P& p, bool& v, const std::string& what) {
    v = p.parse_bool(what);
  }
  static std::string text(const Kernel&, bool v) { return v ? "true" : "false"; }
};
// An ALU op by name.
template <>
struct AsmField<AluOp> {
  template <typename P>
  static void parse(P& p, AluOp& v, const std::string& what) {
    const auto& t = p.expect_ident("an ALU op for " + what);
    auto op = parse_alu_op(t.text);
    if (!op)
      p.fail(t, "unknown ALU op '" + t.text + "' (expected " +
                    choices<AluOp, kAluOpCount>(alu_op_name) + ")");
    v = *op;
  }
  static std::string text(const Kernel&, AluOp v) { return std::string(alu_op_name(v)); }
};
// Given: an ALU op by name; absent: not written.
template <>
struct AsmField<std::optional<AluOp>> {
  template <typename P>
  static void parse(P& p, std::optional<AluOp>& v, const std::string& what) {
    AluOp op{};
    AsmField<AluOp>::parse(p, op, what);
    v = op;
  }
  static std::string text(const Kernel& k, const std::optional<AluOp>& v) {
    return AsmField<AluOp>::text(k, *v);
  }
};
template <>
struct AsmField<ActFunc> {
  template <typename P>
  static void parse(P& p, ActFunc& v, const std::string&) {
    const auto& t = p.expect_ident("an activation function");
    auto f = parse_act_func(t.text);
    if (!f)
      p.fail(t, "unknown activation function '" + t.text + "' (expected " +
                    choices<ActFunc, kActFuncCount>(act_func_name) + ")");
    v = *f;
  }
  static std::string text(const Kernel&, ActFunc v) { return std::string(act_func_name(v)); }
};
template <>
struct AsmField<AccumulateFlag> {
  template <typename P>
  static void parse(P& p, AccumulateFlag& v, const std::string&) {
    const auto& t = p.expect_ident("an accumulate flag");
    auto f = parse_accumulate_flag(t.text);
    if (!f)
      p.fail(t, "unknown accumulate flag '" + t.text + "' (expected single, first, middle, last)");
    v = *f;
  }
  static std::string text(const Kernel&, AccumulateFlag v) {
    return std::string(accumulate_flag_name(v));
  }
};
template <>
struct AsmField<MatmulPerfMode> {
  template <typename P>
  static void parse(P& p, MatmulPerfMode& v, const std::string&) {
    const auto& t = p.expect_ident("a matmul performance mode");
    auto m = parse_matmul_perf_mode(t.text);
    if (!m)
      p.fail(t, "unknown matmul performance mode '" + t.text + "' (expected " +
                    choices<MatmulPerfMode, kMatmulPerfModeCount>(matmul_perf_mode_name) + ")");
    v = *m;
  }
  static std::string text(const Kernel&, MatmulPerfMode v) {
    return std::string(matmul_perf_mode_name(v));
  }
};
// A count, 0..255 (its range in a kernel is validation's).
template <>
struct AsmField<Axes> {
  template <typename P>
  static void parse(P& p, Axes& v, const std::string& what) {
    v = p.template parse_uint<std::uint8_t>(what);
  }
  static std::string text(const Kernel&, Axes v) { return std::to_string(v.count); }
};
// The name of a declared queue.
template <>
struct AsmField<QueueRef> {
  template <typename P>
  static void parse(P& p, QueueRef& v, const std::string&) {
    v = static_cast<std::uint16_t>(p.lookup_kind(p.expect_ident("a queue name"), NameKind::queue));
  }
  static std::string text(const Kernel& k, QueueRef v) {
    if (v.index >= k.queues.size())
      throw Error("print: dma_copy names queue " + std::to_string(v.index) + " of " +
                  std::to_string(k.queues.size()));
    return k.queues[v.index].name;
  }
};
// [s0, s1, ...]: up to kMaxFreeDims coefficients, the rest 0; printed without trailing zeros.
template <>
struct AsmField<Steps> {
  template <typename P>
  static void parse(P& p, Steps& v, const std::string&) {
    p.expect("[", "to open the steps list");
    int n = 0;
    while (!p.peek().is("]")) {
      if (n) p.expect(",", "between steps");
      if (n == kMaxFreeDims)
        p.fail(p.peek(), "too many steps: at most " + std::to_string(kMaxFreeDims));
      v[n++] =
          static_cast<std::int32_t>(p.parse_int("a step", std::numeric_limits<std::int32_t>::min(),
                                                std::numeric_limits<std::int32_t>::max()));
    }
    p.next();
  }
  static std::string text(const Kernel&, const Steps& v) {
    std::size_t n = v.size();
    while (n > 1 && v[n - 1] == 0)
      --n;
    std::string s = "[";
    for (std::size_t i = 0; i < n; ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }
};

static_assert(specialised_for_every_kind<AsmField>(FieldKinds{}),
              "a field kind without its assembly syntax (AsmField)");

}  // namespace neuronsim::isa::asm_detail
