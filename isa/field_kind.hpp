#pragma once
// The kinds of operand field, one C++ type per meaning, and one trait per kind.
//
// A field's type is its kind (instruction.hpp: a tensor operand, an optional one, a scalar
// argument, the immediates, a flag, the enums, an axes count, a queue reference, steps).
// FieldKind<T> holds everything isa/ knows about kind T: its instruction-stream encoding
// (instruction_stream.hpp), its two equalities (equal: as values, what Instruction's ==
// compares, so NaN != NaN and -0 == +0; identical: bit for bit, what the printer needs to
// leave a default out), whether an optional value is given and the pattern it holds. The layers
// above that cannot live here hold one trait specialisation per kind each, in one place per layer:
// the assembly syntax (asm/field_syntax.hpp: parse, print) and the NEFF record
// (neff/instr_codec.cpp: bytes and their checks). There is no primary definition anywhere: a field
// of a type that is not in kFieldKinds, or a kind a layer has no specialisation for, does not
// compile (the static_asserts below and in each layer).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <variant>

#include "isa/instruction.hpp"
#include "isa/stream_bytes.hpp"

namespace neuronsim::isa {

template <typename... T>
struct KindList {};

// Every kind of field, in no particular order.
using FieldKinds = KindList<AccessPattern, std::optional<AccessPattern>, ScalarArg, float, double,
                            std::int32_t, bool, AluOp, std::optional<AluOp>, ActFunc,
                            AccumulateFlag, MatmulPerfMode, Axes, QueueRef, Steps>;

template <typename T, typename... K>
constexpr bool is_field_kind(KindList<K...>) {
  return (std::is_same_v<T, K> || ...);
}

// Whether Trait<K> is defined for every kind K (a layer's specialisations are complete).
template <typename T, typename = void>
struct is_complete : std::false_type {};
template <typename T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <template <typename> class Trait, typename... K>
constexpr bool specialised_for_every_kind(KindList<K...>) {
  return (is_complete<Trait<K>>::value && ...);
}

template <typename T>
struct FieldKind;  // no primary definition: one specialisation per kind below

// Immediates are identical when their bits are: -0 is not +0, and a NaN is the NaN it
// was written as (what printing, the NEFF and the stream preserve).
template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A kind that touches no memory and is always given.
struct SettingKind {
  static constexpr bool holds_pattern = false;
  template <typename T>
  static const AccessPattern* pattern(const T&) {
    return nullptr;
  }
  template <typename T>
  static bool given(const T&) {
    return true;
  }
};

// Encoded in the stream as one byte. Count: the enumerators, for checks of read values.
template <typename E, int Count>
struct EnumKind : SettingKind {
  static_assert(sizeof(E) == 1, "enums are encoded as one byte");
  static constexpr int count = Count;
  static constexpr std::size_t max_stream_bytes = 1;
  static void encode(stream_detail::Writer& w, E v) { w.u8(static_cast<std::uint8_t>(v)); }
  static void decode(stream_detail::Reader& r, E& v) { v = static_cast<E>(r.u8()); }
  static bool equal(E a, E b) { return a == b; }
  static bool identical(E a, E b) { return equal(a, b); }
};

// A tensor operand.
template <>
struct FieldKind<AccessPattern> {
  static constexpr bool holds_pattern = true;
  static constexpr std::size_t max_stream_bytes = stream_detail::kMaxPatternBytes;
  static void encode(stream_detail::Writer& w, const AccessPattern& v) { w.ap(v); }
  static void decode(stream_detail::Reader& r, AccessPattern& v) { r.ap(v); }
  static bool equal(const AccessPattern& a, const AccessPattern& b) { return a == b; }
  static bool identical(const AccessPattern& a, const AccessPattern& b) { return equal(a, b); }
  static bool given(const AccessPattern&) { return true; }
  static const AccessPattern* pattern(const AccessPattern& v) { return &v; }
};

// An optional tensor operand (a bias, a reduction's destination): a tag byte, the pattern.
template <>
struct FieldKind<std::optional<AccessPattern>> {
  using T = std::optional<AccessPattern>;
  static constexpr bool holds_pattern = true;
  static constexpr std::size_t max_stream_bytes = 1 + stream_detail::kMaxPatternBytes;
  static void encode(stream_detail::Writer& w, const T& v) {
    w.u8(v ? 1 : 0);
    if (v) w.ap(*v);
  }
  static void decode(stream_detail::Reader& r, T& v) {
    if (r.u8()) {
      if (!v) v.emplace();
      r.ap(*v);
    } else {
      v.reset();
    }
  }
  static bool equal(const T& a, const T& b) { return a == b; }
  static bool identical(const T& a, const T& b) { return equal(a, b); }
  static bool given(const T& v) { return v.has_value(); }
  static const AccessPattern* pattern(const T& v) { return v ? &*v : nullptr; }
};

// An fp32 immediate or a [P,1] pattern: a tag byte, then the pattern or the float's bits.
template <>
struct FieldKind<ScalarArg> {
  static constexpr bool holds_pattern = true;
  static constexpr std::size_t max_stream_bytes = 1 + stream_detail::kMaxPatternBytes;
  static void encode(stream_detail::Writer& w, const ScalarArg& v) {
    if (const auto* a = std::get_if<AccessPattern>(&v)) {
      w.u8(1);
      w.ap(*a);
    } else {
      w.u8(0);
      w.raw(std::get<float>(v));
    }
  }
  static void decode(stream_detail::Reader& r, ScalarArg& v) {
    if (r.u8()) {
      if (!std::holds_alternative<AccessPattern>(v)) v.emplace<AccessPattern>();
      r.ap(std::get<AccessPattern>(v));
    } else {
      v = r.raw<float>();
    }
  }
  static bool equal(const ScalarArg& a, const ScalarArg& b) { return a == b; }
  static bool identical(const ScalarArg& a, const ScalarArg& b) {
    if (a.index() != b.index()) return false;
    if (const auto* f = std::get_if<float>(&a)) return same_bits(*f, std::get<float>(b));
    return a == b;
  }
  static bool given(const ScalarArg&) { return true; }
  static const AccessPattern* pattern(const ScalarArg& v) { return std::get_if<AccessPattern>(&v); }
};

// Immediates: float and double as their raw bits, int32 as a zigzagged varint.
template <>
struct FieldKind<float> : SettingKind {
  static constexpr std::size_t max_stream_bytes = sizeof(float);
  static void encode(stream_detail::Writer& w, float v) { w.raw(v); }
  static void decode(stream_detail::Reader& r, float& v) { v = r.raw<float>(); }
  static bool equal(float a, float b) { return a == b; }
  static bool identical(float a, float b) { return same_bits(a, b); }
};
template <>
struct FieldKind<double> : SettingKind {
  static constexpr std::size_t max_stream_bytes = sizeof(double);
  static void encode(stream_detail::Writer& w, double v) { w.raw(v); }
  static void decode(stream_detail::Reader& r, double& v) { v = r.raw<double>(); }
  static bool equal(double a, double b) { return a == b; }
  static bool identical(double a, double b) { return same_bits(a, b); }
};
template <>
struct FieldKind<std::int32_t> : SettingKind {
  static constexpr std::size_t max_stream_bytes = 5;
  static void encode(stream_detail::Writer& w, std::int32_t v) { w.svarint(v); }
  static void decode(stream_detail::Reader& r, std::int32_t& v) {
    v = static_cast<std::int32_t>(r.svarint());
  }
  static bool equal(std::int32_t a, std::int32_t b) { return a == b; }
  static bool identical(std::int32_t a, std::int32_t b) { return equal(a, b); }
};

// A flag: one byte.
template <>
struct FieldKind<bool> : SettingKind {
  static constexpr std::size_t max_stream_bytes = 1;
  static void encode(stream_detail::Writer& w, bool v) { w.u8(static_cast<std::uint8_t>(v)); }
  static void decode(stream_detail::Reader& r, bool& v) { v = r.u8() != 0; }
  static bool equal(bool a, bool b) { return a == b; }
  static bool identical(bool a, bool b) { return equal(a, b); }
};

template <>
struct FieldKind<AluOp> : EnumKind<AluOp, kAluOpCount> {};
template <>
struct FieldKind<ActFunc> : EnumKind<ActFunc, kActFuncCount> {};
template <>
struct FieldKind<AccumulateFlag> : EnumKind<AccumulateFlag, kAccumulateFlagCount> {};
template <>
struct FieldKind<MatmulPerfMode> : EnumKind<MatmulPerfMode, kMatmulPerfModeCount> {};

// An optional ALU op (tensor_scalar's op1): a tag byte, the op's byte.
template <>
struct FieldKind<std::optional<AluOp>> {
  using T = std::optional<AluOp>;
  static constexpr bool holds_pattern = false;
  static constexpr std::size_t max_stream_bytes = 2;
  static void encode(stream_detail::Writer& w, const T& v) {
    w.u8(v ? 1 : 0);
    if (v) w.u8(static_cast<std::uint8_t>(*v));
  }
  static void decode(stream_detail::Reader& r, T& v) {
    if (r.u8())
      v = static_cast<AluOp>(r.u8());
    else
      v.reset();
  }
  static bool equal(const T& a, const T& b) { return a == b; }
  static bool identical(const T& a, const T& b) { return equal(a, b); }
  static bool given(const T& v) { return v.has_value(); }
  static const AccessPattern* pattern(const T&) { return nullptr; }
};

// The count of reduced axes: one byte.
template <>
struct FieldKind<Axes> : SettingKind {
  static constexpr std::size_t max_stream_bytes = 1;
  static void encode(stream_detail::Writer& w, Axes v) { w.u8(v.count); }
  static void decode(stream_detail::Reader& r, Axes& v) { v.count = r.u8(); }
  static bool equal(Axes a, Axes b) { return a.count == b.count; }
  static bool identical(Axes a, Axes b) { return equal(a, b); }
};

// A queue reference: its index as a varint.
template <>
struct FieldKind<QueueRef> : SettingKind {
  static constexpr std::size_t max_stream_bytes = 3;
  static void encode(stream_detail::Writer& w, QueueRef v) { w.varint(v.index); }
  static void decode(stream_detail::Reader& r, QueueRef& v) {
    v.index = static_cast<std::uint16_t>(r.varint());
  }
  static bool equal(QueueRef a, QueueRef b) { return a.index == b.index; }
  static bool identical(QueueRef a, QueueRef b) { return equal(a, b); }
};

// Steps: every coefficient as a zigzagged varint.
template <>
struct FieldKind<Steps> : SettingKind {
  static constexpr std::size_t max_stream_bytes = kMaxFreeDims * 5;
  static void encode(stream_detail::Writer& w, const Steps& v) {
    for (std::int32_t s : v)
      w.svarint(s);
  }
  static void decode(stream_detail::Reader& r, Steps& v) {
    for (std::int32_t& s : v)
      s = static_cast<std::int32_t>(r.svarint());
  }
  static bool equal(const Steps& a, const Steps& b) { return a == b; }
  static bool identical(const Steps& a, const Steps& b) { return equal(a, b); }
};

static_assert(specialised_for_every_kind<FieldKind>(FieldKinds{}),
              "a field kind without its FieldKind trait");

}  // namespace neuronsim::isa
