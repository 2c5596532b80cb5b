// The .npy format (numpy's numpy/lib/format.py documents it): a magic string, a version,
// a little-endian header length, a Python-literal dict header padded with spaces to a
// 64-byte boundary and ended by '\n', then the raw elements.
#include "io/npy.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/little_endian.hpp"
#include "io/float_convert.hpp"
#include "isa/dtype_bits.hpp"

namespace neuronsim::io {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
// numpy refuses headers longer than this by default (format._MAX_HEADER_SIZE); every array
// of the dtypes below has a header of a few hundred bytes at most.
constexpr std::size_t kMaxHeaderLen = 10000;
// numpy aligns the data to 64 bytes (format.ARRAY_ALIGN) and leaves room for the first
// axis to grow to 21 digits (format.GROWTH_AXIS_MAX_DIGITS).
constexpr std::size_t kArrayAlign = 64;
constexpr std::size_t kGrowthAxisDigits = 21;

enum class Kind { float_, signed_, unsigned_, bool_ };
struct ElemType {
  Kind kind;
  std::size_t size;
};

// The dtypes accepted in input files. numpy writes 1-byte types with '|'; '<' is accepted
// for them too, since both mean the same bytes.
std::optional<ElemType> elem_type(const std::string& descr) {
  if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '|')) return std::nullopt;
  const char kind = descr[1];
  const int size = descr[2] - '0';
  const bool one_byte = size == 1;
  if (descr[0] == '|' && !one_byte) return std::nullopt;
  switch (kind) {
    case 'f':
      if (size == 2 || size == 4 || size == 8) return ElemType{Kind::float_, std::size_t(size)};
      break;
    case 'i':
      if (size == 1 || size == 2 || size == 4 || size == 8)
        return ElemType{Kind::signed_, std::size_t(size)};
      break;
    case 'u':
      if (size == 1 || size == 2 || size == 4) return ElemType{Kind::unsigned_, std::size_t(size)};
      break;
    case 'b':
      if (size == 1) return ElemType{Kind::bool_, 1};
      break;
  }
  return std::nullopt;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Product of the dims times `unit`; nullopt when it does not fit 64 bits.
std::optional<std::uint64_t> checked_size(const std::vector<std::uint64_t>& shape,
                                          std::uint64_t unit) {
  std::uint64_t n = unit;
  for (auto d : shape) {
    if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

// Parses the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
// Only the literal forms numpy writes are accepted: strings, True/False, int tuples.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  void parse(NpyArray& out) {
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        out.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (boolean_literal()) fail("Fortran-order arrays are not supported (save in C order)");
        have_order = true;
      } else if (key == "shape") {
        out.shape = int_tuple();
        have_shape = true;
      } else {
        fail("unknown header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}' in the header");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the header dict");
    if (!have_descr || !have_order || !have_shape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { throw Error(source_ + ": " + reason); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("malformed header: expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("malformed header: expected a string");
    const std::size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("malformed header: unterminated string");
    std::string v = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return v;
  }
  bool boolean_literal() {
    skip_space();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::size_t n = std::strlen(word);
      if (s_.compare(pos_, n, word) == 0) {
        pos_ += n;
        return value;
      }
    }
    fail("malformed header: fortran_order is not True or False");
  }
  std::vector<std::uint64_t> int_tuple() {
    expect('(');
    std::vector<std::uint64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("malformed header: shape is not a tuple of non-negative integers");
      std::uint64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const unsigned digit = static_cast<unsigned>(s_[pos_++] - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
          fail("shape dimension too large");
        v = v * 10 + digit;
      }
      if (peek() == 'L') ++pos_;  // Python 2's long literals, in files from old numpy
      dims.push_back(v);
      if (dims.size() > 32) fail("shape has more than 32 dimensions");  // numpy's own limit
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("malformed header: expected ',' or ')' in the shape");
    }
    ++pos_;
    return dims;
  }

  const std::string& s_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

std::string shape_tuple(const std::vector<std::uint64_t>& shape) {
  if (shape.size() == 1) return "(" + std::to_string(shape[0]) + ",)";
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

// A converted input element: integers stay exact until stored, floats go through fp32.
void store_element(const ElemType& from, const std::uint8_t* src, isa::DType to,
                   std::uint8_t* dst) {
  const std::uint64_t bits = load_le(src, from.size);
  if (from.kind == Kind::float_) {
    float v;
    if (from.size == 2) {
      v = isa::fp16_to_fp32(static_cast<std::uint16_t>(bits));
    } else if (from.size == 4) {
      std::uint32_t b32 = static_cast<std::uint32_t>(bits);
      std::memcpy(&v, &b32, 4);
    } else {
      double d;
      std::memcpy(&d, &bits, 8);
      v = static_cast<float>(d);
    }
    isa::store_fp32(to, v, dst);
    return;
  }
  std::int64_t v;
  if (from.kind == Kind::bool_) {
    v = bits != 0;
  } else if (from.kind == Kind::signed_) {
    const unsigned shift = 64 - 8 * static_cast<unsigned>(from.size);  // sign-extend
    v = static_cast<std::int64_t>(bits << shift) >> shift;
  } else {
    v = static_cast<std::int64_t>(bits);
  }
  if (isa::is_integer(to))
    isa::store_int(to, v, dst);
  else
    isa::store_fp32(to, static_cast<float>(v), dst);
}

bool is_widened(isa::DType t) {
  return t == isa::DType::bf16 || t == isa::DType::tf32 || t == isa::DType::fp8_e4m3 ||
         t == isa::DType::fp8_e5m2 || t == isa::DType::fp8_e4m3fn || t == isa::DType::fp8_e8m0;
}

// Where a file's elements are: after the magic, version, header length and header.
struct NpyLayout {
  std::uint64_t data_offset = 0;
  std::uint64_t data_bytes = 0;
};

// Checks the magic, version, header and data size of a .npy file of `file_size` bytes whose
// first `have` bytes (all of them, or at least the magic, version, length and header) are
// at `bytes`; returns the array without its data, and where the data is.
NpyArray parse_header(const std::uint8_t* bytes, std::size_t have, std::uint64_t file_size,
                      const std::string& source, NpyLayout& layout) {
  auto fail = [&](const std::string& reason) -> Error { return Error(source + ": " + reason); };
  if (file_size < kMagicLen + 2 || std::memcmp(bytes, kMagic, kMagicLen) != 0)
    throw fail("not a .npy file (bad magic)");
  const int major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    throw fail("unsupported .npy format version " + std::to_string(major) + "." +
               std::to_string(minor) + " (1.0, 2.0 and 3.0 are read)");
  const std::size_t len_size = major == 1 ? 2 : 4;
  const std::size_t prefix = kMagicLen + 2 + len_size;
  if (file_size < prefix) throw fail("truncated: the file ends inside the header length");
  const std::uint64_t header_len = load_le(bytes + kMagicLen + 2, len_size);
  if (header_len > kMaxHeaderLen)
    throw fail("header too long (" + std::to_string(header_len) + " bytes, at most " +
               std::to_string(kMaxHeaderLen) + ")");
  if (file_size < prefix + header_len)
    throw fail("truncated: the file ends inside the " + std::to_string(header_len) +
               "-byte header");
  if (have < prefix + header_len) throw fail("internal: the header was not read whole");
  // Versions 1.0 and 2.0 are latin-1, 3.0 is utf-8; the keys and values read are ASCII.
  const std::string header(bytes + prefix, bytes + prefix + header_len);
  NpyArray a;
  HeaderParser(header, source).parse(a);
  if (a.descr.size() == 3 && a.descr[0] == '>')
    throw fail("big-endian dtype '" + a.descr + "' is not supported (use little-endian)");
  const auto type = elem_type(a.descr);
  if (!type)
    throw fail("dtype '" + a.descr +
               "' is not supported (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 |b1)");
  const auto data_size = checked_size(a.shape, type->size);
  const std::uint64_t data_have = file_size - prefix - header_len;
  if (!data_size) throw fail("shape " + shape_text(a.shape) + " is too large");
  if (data_have != *data_size)
    throw fail((data_have < *data_size ? "truncated: " : "size mismatch: ") +
               std::string("shape ") + shape_text(a.shape) + " of '" + a.descr + "' needs " +
               std::to_string(*data_size) + " data bytes, the file has " +
               std::to_string(data_have));
  layout.data_offset = prefix + header_len;
  layout.data_bytes = *data_size;
  return a;
}

// The header of an open file, read with the prefix before it (at most a few KiB).
NpyArray read_header(const InputFile& file, NpyLayout& layout) {
  constexpr std::uint64_t kLongestPrefix = kMagicLen + 2 + 4 + kMaxHeaderLen;
  std::uint8_t first[kMagicLen + 2 + 4] = {};
  const std::size_t have_first =
      static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), sizeof first));
  file.read_at(0, first, have_first);
  std::vector<std::uint8_t> prefix(first, first + have_first);
  if (have_first >= kMagicLen + 2 + 2 && std::memcmp(first, kMagic, kMagicLen) == 0) {
    // The whole header, once its length is known (checked against the limit first).
    const std::size_t len_size = first[6] == 1 ? 2 : 4;
    const std::uint64_t header_len = load_le(first + kMagicLen + 2, len_size);
    const std::uint64_t want = std::min<std::uint64_t>(
        {file.size(), kMagicLen + 2 + len_size + std::min<std::uint64_t>(header_len, kMaxHeaderLen),
         kLongestPrefix});
    if (want > prefix.size()) {
      prefix.resize(static_cast<std::size_t>(want));
      file.read_at(have_first, prefix.data() + have_first, prefix.size() - have_first);
    }
  }
  return parse_header(prefix.data(), prefix.size(), file.size(), file.path(), layout);
}

// How an array's elements become a tensor's: byte for byte, or converted from `from`.
struct Conversion {
  bool same_bytes = false;
  ElemType from{Kind::float_, 4};
};

// The checks of npy_to_tensor, in its order: shape, dtype, data size, integers for floats.
Conversion plan_conversion(const NpyArray& a, std::uint64_t data_bytes,
                           const isa::HbmTensor& tensor, const std::string& source, bool raw_bits,
                           bool cast) {
  if (a.shape != tensor.shape)
    throw Error(source + ": tensor " + tensor.name + " expects shape " + shape_text(tensor.shape) +
                ", got " + shape_text(a.shape));
  const auto type = elem_type(a.descr);
  if (!type) throw Error(source + ": dtype '" + a.descr + "' is not supported");
  if (data_bytes != a.elems() * type->size)
    throw Error(source + ": data size does not match shape " + shape_text(a.shape));
  const bool same_bytes = a.descr == npy_descr(tensor.dtype, false) && !is_widened(tensor.dtype);
  const bool bit_patterns =
      raw_bits && is_widened(tensor.dtype) && a.descr == npy_descr(tensor.dtype, true);
  if (same_bytes || bit_patterns) return {true, *type};
  if (isa::is_packed_x4(tensor.dtype))
    throw Error(source + ": tensor " + tensor.name + " is " +
                std::string(isa::dtype_name(tensor.dtype)) +
                " (four packed values per element): the file must hold its bit patterns as " +
                (isa::dtype_size(tensor.dtype) == 4 ? "uint32 ('<u4')" : "uint16 ('<u2')") +
                ", not '" + a.descr + "'");
  // Integers for a float tensor are most often bit patterns saved without --raw-bits (bf16
  // as uint16); read as values they run with nonsense and exit 0, so they need a word.
  if (isa::is_float(tensor.dtype) &&
      (type->kind == Kind::signed_ || type->kind == Kind::unsigned_) && !raw_bits && !cast)
    throw Error(source + ": tensor " + tensor.name + " is " +
                std::string(isa::dtype_name(tensor.dtype)) + " but the file holds integers ('" +
                a.descr +
                "'): give --raw-bits if they are bit patterns, add ,cast after the file name "
                "to convert the integer values, or save floats");
  return {false, *type};
}

// Elements converted a chunk at a time when a file is read (the buffer stays in cache).
constexpr std::uint64_t kConvertChunkElems = 64 * 1024;

// n elements of type `from` at `src` (little-endian) into `to` at `dst`, as store_element
// converts each.
void convert_elements(const ElemType& from, const std::uint8_t* src, std::uint64_t n, isa::DType to,
                      std::uint8_t* dst) {
  namespace bits = isa::dtype_bits;
  constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  bool done = false;
  if (kLittleEndian && from.kind == Kind::float_) {
    if (from.size == 4)
      done = detail::convert_floats(
          src, 4, n,
          [](const std::uint8_t* p) {
            float v;
            std::memcpy(&v, p, 4);
            return v;
          },
          to, dst);
    else if (from.size == 2)
      done = detail::convert_floats(
          src, 2, n, [](const std::uint8_t* p) { return bits::Fp16Format::to_fp32(load_le16(p)); },
          to, dst);
    else if (from.size == 8)
      done = detail::convert_floats(
          src, 8, n,
          [](const std::uint8_t* p) {
            double d;
            std::memcpy(&d, p, 8);
            return static_cast<float>(d);
          },
          to, dst);
  }
  if (done) return;
  const std::size_t out_size = isa::dtype_size(to);
  for (std::uint64_t i = 0; i < n; ++i)
    store_element(from, src + i * from.size, to, dst + i * out_size);
}

}  // namespace

std::uint64_t NpyArray::elems() const {
  std::uint64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

std::uint64_t npy_max_file_bytes(std::uint64_t elems) {
  constexpr std::uint64_t kWidest = 8, kPrefix = kMagicLen + 2 + 4;
  const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - kPrefix - kMaxHeaderLen;
  return (elems > room / kWidest ? room : elems * kWidest) + kPrefix + kMaxHeaderLen;
}

NpyArray read_npy(const std::string& path) {
  const InputFile file(path, Limit::npy_file_bytes);
  NpyLayout layout;
  NpyArray a = read_header(file, layout);
  a.data.resize(static_cast<std::size_t>(layout.data_bytes));
  file.read_at(layout.data_offset, a.data.data(), a.data.size());
  return a;
}

NpyArray parse_npy(const std::vector<std::uint8_t>& bytes, const std::string& source) {
  NpyLayout layout;
  NpyArray a = parse_header(bytes.data(), bytes.size(), bytes.size(), source, layout);
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(layout.data_offset), bytes.end());
  return a;
}

std::vector<std::uint8_t> npy_to_tensor(const NpyArray& a, const isa::HbmTensor& tensor,
                                        const std::string& source, bool raw_bits, bool cast) {
  const Conversion c = plan_conversion(a, a.data.size(), tensor, source, raw_bits, cast);
  if (c.same_bytes) return a.data;
  std::vector<std::uint8_t> out(tensor.bytes());
  convert_elements(c.from, a.data.data(), a.elems(), tensor.dtype, out.data());
  return out;
}

std::vector<std::uint8_t> read_npy_tensor(const std::string& path, const isa::HbmTensor& tensor,
                                          bool raw_bits, bool cast) {
  const InputFile file(path, Limit::npy_file_bytes);
  NpyLayout layout;
  const NpyArray a = read_header(file, layout);
  const Conversion c = plan_conversion(a, layout.data_bytes, tensor, path, raw_bits, cast);
  const ElemType from = c.from;
  std::vector<std::uint8_t> out(tensor.bytes());
  if (c.same_bytes) {  // straight into the tensor
    file.read_at(layout.data_offset, out.data(), out.size());
    return out;
  }
  // Piece by piece through a buffer that stays in cache, converted into the tensor.
  const std::uint64_t elems = a.elems();
  const std::size_t out_size = isa::dtype_size(tensor.dtype);
  std::vector<std::uint8_t> buffer(kConvertChunkElems * from.size);
  for (std::uint64_t at = 0; at < elems; at += kConvertChunkElems) {
    const std::uint64_t n = std::min<std::uint64_t>(kConvertChunkElems, elems - at);
    file.read_at(layout.data_offset + at * from.size, buffer.data(),
                 static_cast<std::size_t>(n * from.size));
    convert_elements(from, buffer.data(), n, tensor.dtype, out.data() + at * out_size);
  }
  return out;
}

std::string npy_descr(isa::DType dtype, bool raw_bits) {
  using isa::DType;
  switch (dtype) {
    case DType::fp32:
      return "<f4";
    case DType::fp16:
      return "<f2";
    case DType::int8:
      return "|i1";
    case DType::int16:
      return "<i2";
    case DType::int32:
      return "<i4";
    case DType::uint8:
      return "|u1";
    case DType::uint16:
      return "<u2";
    case DType::uint32:
      return "<u4";
    // No numpy dtype: widened exactly to float32, or the raw bits as unsigned integers.
    case DType::tf32:
      return raw_bits ? "<u4" : "<f4";
    case DType::bf16:
      return raw_bits ? "<u2" : "<f4";
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::fp8_e4m3fn:
    case DType::fp8_e8m0:
      return raw_bits ? "|u1" : "<f4";
    // Four fp8 lanes and no one value: always the 32-bit pattern, lane 0 the low byte
    // (docs/python.md, "MX").
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
      return "<u4";
    case DType::fp4_e2m1fn_x4:  // four fp4 lanes: the 16-bit pattern, lane 0 the low nibble
      return "<u2";
  }
  throw Error("npy: unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

namespace {

// The magic, version, header length and header of a .npy file of `bytes` (dtype elements,
// row-major, of `shape`), exactly as numpy.lib.format._write_array_header builds them.
std::vector<std::uint8_t> npy_prefix(isa::DType dtype, const std::vector<std::uint64_t>& shape,
                                     const std::vector<std::uint8_t>& bytes, bool raw_bits) {
  const std::size_t in_size = isa::dtype_size(dtype);
  const auto expected = checked_size(shape, in_size);
  if (!expected || *expected != bytes.size())
    throw Error("npy: " + std::to_string(bytes.size()) + " bytes do not hold a " +
                std::string(isa::dtype_name(dtype)) + " array of shape " + shape_text(shape));
  const std::string descr = npy_descr(dtype, raw_bits);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  if (!shape.empty()) {
    const std::size_t digits = std::to_string(shape[0]).size();
    header.append(kGrowthAxisDigits > digits ? kGrowthAxisDigits - digits : 0, ' ');
  }
  std::size_t len_size = 2;  // version 1.0 while the header length fits 16 bits
  std::size_t pad = kArrayAlign - (kMagicLen + 2 + len_size + header.size() + 1) % kArrayAlign;
  if (header.size() + 1 + pad > 0xffff) {
    len_size = 4;
    pad = kArrayAlign - (kMagicLen + 2 + len_size + header.size() + 1) % kArrayAlign;
  }
  header.append(pad, ' ');
  header += '\n';

  std::vector<std::uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(len_size == 2 ? 1 : 2);
  out.push_back(0);
  append_le(out, header.size(), len_size);
  out.insert(out.end(), header.begin(), header.end());
  return out;
}

// n elements of a widened dtype (bf16, tf32, fp8) at `src` as little-endian float32 at
// `dst`: every one of their values is exactly an fp32 value (isa::load_fp32, inline).
void widen_elements(isa::DType dtype, const std::uint8_t* src, std::size_t n, std::uint8_t* dst) {
  namespace bits = isa::dtype_bits;
  auto run = [&](std::size_t in_size, auto to_fp32_bits) {
    for (std::size_t i = 0; i < n; ++i) {
      store_le32(dst + i * 4, to_fp32_bits(src + i * in_size));
    }
  };
  switch (dtype) {
    case isa::DType::bf16:
      return run(2, [](const std::uint8_t* p) {
        return std::uint32_t{static_cast<std::uint16_t>(load_le(p, 2))} << 16;
      });
    case isa::DType::tf32:  // a stored tf32 keeps its value (isa::load_fp32 rounds it again)
      return run(4, [](const std::uint8_t* p) {
        return bits::float_bits(
            bits::round_to_tf32(bits::bits_float(static_cast<std::uint32_t>(load_le(p, 4)))));
      });
    case isa::DType::fp8_e4m3:
      return run(1, [](const std::uint8_t* p) { return bits::kFp8E4M3ToFp32[*p]; });
    case isa::DType::fp8_e5m2:
      return run(1, [](const std::uint8_t* p) { return bits::kFp8E5M2ToFp32[*p]; });
    case isa::DType::fp8_e4m3fn:
      return run(1, [](const std::uint8_t* p) { return bits::kFp8E4M3FnToFp32[*p]; });
    case isa::DType::fp8_e8m0:
      return run(1, [](const std::uint8_t* p) { return bits::kE8M0ToFp32[*p]; });
    default:
      throw Error("npy: " + std::string(isa::dtype_name(dtype)) + " is not widened");
  }
}

// Elements widened a chunk at a time when a file is written.
constexpr std::size_t kWidenChunkElems = 64 * 1024;

}  // namespace

std::vector<std::uint8_t> encode_npy(isa::DType dtype, const std::vector<std::uint64_t>& shape,
                                     const std::vector<std::uint8_t>& bytes, bool raw_bits) {
  std::vector<std::uint8_t> out = npy_prefix(dtype, shape, bytes, raw_bits);
  if (raw_bits || !is_widened(dtype)) {
    out.insert(out.end(), bytes.begin(), bytes.end());
    return out;
  }
  const std::size_t in_size = isa::dtype_size(dtype);
  const std::size_t elems = bytes.size() / in_size;
  const std::size_t data_at = out.size();
  out.resize(data_at + elems * 4);
  widen_elements(dtype, bytes.data(), elems, out.data() + data_at);
  return out;
}

void write_npy(const std::string& path, isa::DType dtype, const std::vector<std::uint64_t>& shape,
               const std::vector<std::uint8_t>& bytes, bool raw_bits) {
  // Written in parts: the header, then the elements as they are (or widened a chunk at a
  // time), never the whole file built in memory first.
  const std::vector<std::uint8_t> prefix = npy_prefix(dtype, shape, bytes, raw_bits);
  AtomicFile file(path);
  file.write(prefix.data(), prefix.size());
  if (raw_bits || !is_widened(dtype)) {
    file.write(bytes.data(), bytes.size());
  } else {
    const std::size_t in_size = isa::dtype_size(dtype);
    const std::size_t elems = bytes.size() / in_size;
    std::vector<std::uint8_t> widened(std::min(elems, kWidenChunkElems) * 4);
    for (std::size_t at = 0; at < elems; at += kWidenChunkElems) {
      const std::size_t n = std::min(kWidenChunkElems, elems - at);
      widen_elements(dtype, bytes.data() + at * in_size, n, widened.data());
      file.write(widened.data(), n * 4);
    }
  }
  file.commit();
}

}  // namespace neuronsim::io
