// The assembler: tokens -> statements -> Kernel (docs/assembly.md). One pass; names must
// be declared before use. It checks syntax, names and the declared shapes only; hardware
// rules (capacities, start partitions, engine permissions) are validation's.
#include "asm/assembler.hpp"

#include <array>
#include <limits>
#include <map>
#include <set>

#include "asm/field_syntax.hpp"
#include "asm/lexer.hpp"
#include "asm/syntax.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "isa/for_each_field.hpp"
#include "isa/kernel_limits.hpp"
#include "isa/literal.hpp"
#include "isa/placement.hpp"
#include "isa/view.hpp"

namespace neuronsim::isa {

namespace {

using namespace asm_detail;

constexpr const char* kKindNames[] = {"a tensor", "an allocation", "a semaphore", "a queue",
                                      "a source file"};
const std::set<std::string> kReserved = {"inf", "nan", "true", "false"};
constexpr std::uint64_t kMaxConstantBytes = std::uint64_t{1} << 30;

struct NameEntry {
  NameKind kind;
  std::uint32_t index;
  int line;
};

class Parser {
  // The field kinds' syntax reads values with the primitives below (field_syntax.hpp).
  template <typename>
  friend struct asm_detail::AsmField;

 public:
  Parser(std::string_view source, const std::string& file) : file_(file), tokens_(source, file) {}

  // A reader of single field values over the names a kernel declares (FieldReader).
  Parser(const Kernel& declared, const std::string& file)
      : file_(file), tokens_("", file), k_(declared), have_kernel_(true) {
    const auto add = [&](const auto& items, NameKind kind) {
      for (std::size_t i = 0; i < items.size(); ++i)
        names_.emplace(items[i].name, NameEntry{kind, static_cast<std::uint32_t>(i), 0});
    };
    add(k_.tensors, NameKind::tensor);
    add(k_.allocations, NameKind::allocation);
    add(k_.semaphores, NameKind::semaphore);
    add(k_.queues, NameKind::queue);
    add(k_.sources, NameKind::source);
  }

  // Field `key` of `op` (an `opname`) read from `text`, the value of its `key=value`
  // (a positional operand's whole text), which stands on line `line`.
  void read_field(Operation& op, std::string_view key, std::string_view text, int line,
                  const std::string& opname) {
    tokens_ = TokenStream(text, file_, line);
    bool known = false;
    for (const Field& f : fields(static_cast<Opcode>(op.index())))
      known = known || f.key == key;
    if (!known) fail(peek(), opname + " has no field '" + std::string(key) + "'");
    field_value(key, op, opname);
    if (!at_eos())
      fail(peek(),
           "unexpected " + describe(peek()) + " after the " + std::string(key) + " of " + opname);
  }

  Kernel run() {
    while (peek().kind != TokenKind::end) {
      tokens_.release();  // the statements before are done with their tokens
      if (peek().kind == TokenKind::newline) {
        next();
        continue;
      }
      statement();
    }
    if (!have_kernel_) fail_at(file_, 1, 0, "missing the 'kernel NAME' statement");
    place_allocations(k_.allocations, fixed_);
    return std::move(k_);
  }

 private:
  // --- tokens
  const Token& peek(std::size_t ahead = 0) const { return tokens_.peek(ahead); }
  const Token& next() { return tokens_.next(); }
  [[noreturn]] void fail(const Token& t, const std::string& reason) const {
    fail_at(file_, t.line, t.column, reason);
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::newline:
        return "end of line";
      case TokenKind::end:
        return "end of file";
      case TokenKind::string:
        return "string " + quote_string(t.text);
      default:
        return "'" + t.text + "'";
    }
  }
  bool at_eos() const { return peek().kind == TokenKind::newline; }
  void expect(std::string_view punct, const std::string& context) {
    if (!peek().is(punct))
      fail(peek(),
           "expected '" + std::string(punct) + "' " + context + ", found " + describe(peek()));
    next();
  }
  const Token& expect_ident(const std::string& what) {
    if (peek().kind != TokenKind::ident)
      fail(peek(), "expected " + what + ", found " + describe(peek()));
    return next();
  }
  void expect_eos() {
    if (!at_eos()) fail(peek(), "unexpected " + describe(peek()));
    next();
  }

  // --- numbers
  std::int64_t parse_int(const std::string& what, std::int64_t lo, std::int64_t hi) {
    const Token& start = peek();
    const bool negative = peek().is("-");
    if (negative) next();
    const Token& t = peek();
    if (t.kind != TokenKind::number)
      fail(t, "expected " + what + " (an integer), found " + describe(t));
    next();
    auto v = parse_int_literal(t.text, negative);
    const std::string text = (negative ? "-" : "") + t.text;
    if (!v) fail(start, "malformed integer '" + text + "' for " + what);
    if (*v < lo || *v > hi)
      fail(start, what + " " + text + " out of range (" + std::to_string(lo) + ".." +
                      std::to_string(hi) + ")");
    return *v;
  }
  template <typename T>
  T parse_uint(const std::string& what) {
    return static_cast<T>(
        parse_int(what, 0, static_cast<std::int64_t>(std::numeric_limits<T>::max())));
  }
  bool at_number() const {
    const Token& t = peek(peek().is("-") ? 1 : 0);
    return t.kind == TokenKind::number || t.is_ident("inf") || t.is_ident("nan");
  }
  Literal parse_literal(const std::string& what) {
    Literal lit;
    lit.negative = peek().is("-");
    if (lit.negative) next();
    const Token& t = peek();
    if (!(t.kind == TokenKind::number || t.is_ident("inf") || t.is_ident("nan")))
      fail(t, "expected " + what + " (a number), found " + describe(t));
    lit.text = next().text;
    return lit;
  }
  float parse_float(const std::string& what) {
    const Token& start = peek();
    Literal lit = parse_literal(what);
    auto v = parse_float_literal(lit.text, lit.negative);
    if (!v)
      fail(start, "malformed number '" + std::string(lit.negative ? "-" : "") + lit.text +
                      "' for " + what);
    return *v;
  }
  double parse_double(const std::string& what) {
    const Token& start = peek();
    Literal lit = parse_literal(what);
    auto v = parse_double_literal(lit.text, lit.negative);
    if (!v)
      fail(start, "malformed number '" + std::string(lit.negative ? "-" : "") + lit.text +
                      "' for " + what);
    return *v;
  }
  bool parse_bool(const std::string& what) {
    const Token& t = peek();
    if (t.is_ident("true") || t.is_ident("false")) return next().text == "true";
    fail(t, "expected true or false for " + what + ", found " + describe(t));
  }

  // --- names
  void declare(const Token& at, NameKind kind, std::uint32_t index) {
    if (kReserved.count(at.text))
      fail(at, "'" + at.text + "' is a reserved word and cannot be a name");
    auto [it, fresh] = names_.emplace(at.text, NameEntry{kind, index, at.line});
    if (!fresh)
      fail(at, "duplicate name '" + at.text + "' (first declared on line " +
                   std::to_string(it->second.line) + ")");
  }
  const NameEntry& lookup(const Token& t) const {
    auto it = names_.find(t.text);
    if (it == names_.end()) fail(t, "unknown name '" + t.text + "'");
    return it->second;
  }
  std::uint32_t lookup_kind(const Token& t, NameKind kind) const {
    const NameEntry& e = lookup(t);
    if (e.kind != kind)
      fail(t, "'" + t.text + "' is " + kKindNames[static_cast<int>(e.kind)] + ", not " +
                  kKindNames[static_cast<int>(kind)]);
    return e.index;
  }
  DType parse_dtype_name() {
    const Token& t = expect_ident("a dtype");
    auto d = isa::parse_dtype(t.text);
    if (!d)
      fail(t, "unknown dtype '" + t.text + "' (expected " +
                  choices<DType, kDTypeCount>(dtype_name) + ")");
    return *d;
  }
  std::string parse_word(const std::string& what) {
    if (peek().kind == TokenKind::string || peek().kind == TokenKind::ident) return next().text;
    fail(peek(), "expected " + what + " (a name or a quoted string), found " + describe(peek()));
  }

  // --- statements
  void statement() {
    const Token& t = peek();
    if (t.kind != TokenKind::ident) fail(t, "expected a statement, found " + describe(t));
    if (!have_kernel_ && !t.is_ident("kernel"))
      fail(t, "the first statement must be 'kernel NAME', found '" + t.text + "'");
    if (peek(1).is(":")) return section();
    if (t.text == "kernel") return kernel_statement();
    if (t.text == "tensor") return tensor_statement();
    if (t.text == "sbuf") return allocation_statement(MemSpace::sbuf);
    if (t.text == "psum") return allocation_statement(MemSpace::psum);
    if (t.text == "sem") return semaphore_statement();
    if (t.text == "queue") return queue_statement();
    if (t.text == "source") return source_statement();
    instruction();
  }

  void section() {
    const Token& t = next();
    auto e = parse_engine(t.text);
    if (!e)
      fail(t, "unknown engine section '" + t.text +
                  "' (expected tensor, vector, scalar, gpsimd or sync)");
    next();  // ':'
    section_ = *e;
    expect_eos();
  }

  // Options of a declaration: key=value pairs separated by spaces.
  template <typename OnKey>
  void declaration_options(const std::string& statement, const std::string& expected,
                           OnKey on_key) {
    std::set<std::string> seen;
    while (!at_eos()) {
      const Token& key = expect_ident("an option (" + expected + ")");
      expect("=", "after option '" + key.text + "'");
      if (!seen.insert(key.text).second) fail(key, "option '" + key.text + "' given twice");
      if (!on_key(key.text))
        fail(key,
             "unknown option '" + key.text + "' for " + statement + " (expected " + expected + ")");
    }
    next();
  }

  void kernel_statement() {
    const Token& kw = next();
    if (have_kernel_)
      fail(kw, "second 'kernel' statement (the kernel is named on line " +
                   std::to_string(kernel_line_) + ")");
    have_kernel_ = true;
    kernel_line_ = kw.line;
    k_.name = parse_word("the kernel name");
    declaration_options("kernel", "target", [&](const std::string& key) {
      if (key != "target") return false;
      k_.target = parse_word("a target");
      return true;
    });
  }

  std::vector<std::uint64_t> parse_shape(const std::string& what, std::uint64_t max) {
    expect("[", "to open the shape of " + what);
    std::vector<std::uint64_t> shape;
    while (!peek().is("]")) {
      if (!shape.empty()) expect(",", "between the dimensions of " + what);
      shape.push_back(static_cast<std::uint64_t>(
          parse_int("a dimension of " + what, 0, static_cast<std::int64_t>(max))));
    }
    next();
    return shape;
  }

  void tensor_statement() {
    next();
    const Token& name = expect_ident("a tensor name");
    HbmTensor t;
    t.name = name.text;
    t.dtype = parse_dtype_name();
    t.shape = parse_shape("tensor '" + t.name + "'", std::numeric_limits<std::int64_t>::max());
    const Token& role = expect_ident("a role (input, output, constant or scratch)");
    bool known = false;
    for (int r = 0; r < 4; ++r)
      if (tensor_role_name(static_cast<TensorRole>(r)) == role.text) {
        t.role = static_cast<TensorRole>(r);
        known = true;
      }
    if (!known)
      fail(role, "unknown role '" + role.text + "' (expected input, output, constant or scratch)");
    if (t.role == TensorRole::constant) {
      if (!peek().is("="))
        fail(peek(),
             "constant '" + t.name + "' needs a value: '= FILL', '= [values]' or '= bits ...'");
      next();
      constant_value(t, name);
    } else if (peek().is("=")) {
      fail(peek(), "only constant tensors take a value ('" + t.name + "' is " + role.text + ")");
    }
    expect_eos();
    declare(name, NameKind::tensor, static_cast<std::uint32_t>(k_.tensors.size()));
    k_.tensors.push_back(std::move(t));
  }

  void constant_value(HbmTensor& t, const Token& name) {
    std::uint64_t elems = 1;
    for (auto d : t.shape) {
      if (d != 0 && elems > kMaxConstantBytes / d)
        fail(name, "constant '" + t.name + "' is too large");
      elems *= d;
    }
    if (elems * dtype_size(t.dtype) > kMaxConstantBytes)
      fail(name, "constant '" + t.name + "' is too large (over 1 GiB)");
    const std::size_t size = dtype_size(t.dtype);
    const bool bits = peek().is_ident("bits");
    if (bits) next();
    // One element, as a value or as raw bits; the reason when it does not fit.
    auto element = [&](std::uint8_t* out) {
      const Token& at = peek();
      std::optional<std::string> problem;
      if (bits) {
        const std::int64_t v =
            parse_int("the bits of an element", 0, std::numeric_limits<std::int64_t>::max());
        problem = encode_bits(t.dtype, static_cast<std::uint64_t>(v), out);
      } else {
        problem = encode_literal(t.dtype, parse_literal("a value of '" + t.name + "'"), out);
      }
      if (problem) fail(at, *problem);
    };
    t.data.assign(elems * size, 0);
    if (!peek().is("[")) {  // a fill value
      std::uint8_t one[8] = {};
      element(one);
      for (std::uint64_t i = 0; i < elems; ++i)
        std::copy(one, one + size, t.data.begin() + static_cast<std::ptrdiff_t>(i * size));
      return;
    }
    const Token& open = next();
    std::uint64_t count = 0;
    std::uint8_t scratch[8] = {};
    while (!peek().is("]")) {
      if (count) expect(",", "between the values of '" + t.name + "'");
      element(count < elems ? t.data.data() + count * size : scratch);
      ++count;
    }
    next();
    if (count != elems)
      fail(open, "constant '" + t.name + "' has " + std::to_string(count) +
                     " values but its shape holds " + std::to_string(elems));
  }

  void allocation_statement(MemSpace space) {
    const std::string kw = next().text;
    const Token& name = expect_ident("an allocation name");
    Allocation a;
    a.name = name.text;
    a.space = space;
    a.dtype = parse_dtype_name();
    const Token& shape_at = peek();
    auto shape = parse_shape(kw + " '" + a.name + "'", std::numeric_limits<std::uint32_t>::max());
    if (shape.empty())
      fail(shape_at, kw + " '" + a.name + "' needs a partition count: " +
                         std::string(dtype_name(a.dtype)) + "[partitions, free...]");
    a.partitions = static_cast<std::uint32_t>(shape[0]);
    for (std::size_t i = 1; i < shape.size(); ++i)
      a.free_shape.push_back(static_cast<std::uint32_t>(shape[i]));
    bool fixed = false;
    declaration_options(kw, "partition, offset", [&](const std::string& key) {
      if (key == "partition") {
        a.start_partition = parse_uint<std::uint32_t>("partition");
      } else if (key == "offset") {
        a.byte_offset = parse_uint<std::uint32_t>("offset");
        fixed = true;
      } else {
        return false;
      }
      return true;
    });
    declare(name, NameKind::allocation, static_cast<std::uint32_t>(k_.allocations.size()));
    k_.allocations.push_back(std::move(a));
    fixed_.push_back(fixed);
  }

  void semaphore_statement() {
    next();
    const Token& name = expect_ident("a semaphore name");
    Semaphore s;
    s.name = name.text;
    if (peek().is("=")) {
      next();
      s.initial = parse_uint<std::uint32_t>("the initial value of '" + s.name + "'");
    }
    expect_eos();
    if (k_.semaphores.size() > std::numeric_limits<std::uint16_t>::max())
      fail(name, "too many semaphores");
    declare(name, NameKind::semaphore, static_cast<std::uint32_t>(k_.semaphores.size()));
    k_.semaphores.push_back(std::move(s));
  }

  void queue_statement() {
    next();
    const Token& name = expect_ident("a queue name");
    DmaQueue q;
    q.name = name.text;
    declaration_options("queue", "first_engine, engines", [&](const std::string& key) {
      if (key == "first_engine") {
        q.first_engine = parse_uint<std::uint8_t>("first_engine");
      } else if (key == "engines") {
        q.engines = parse_uint<std::uint8_t>("engines");
      } else {
        return false;
      }
      return true;
    });
    if (k_.queues.size() > std::numeric_limits<std::uint16_t>::max()) fail(name, "too many queues");
    declare(name, NameKind::queue, static_cast<std::uint32_t>(k_.queues.size()));
    k_.queues.push_back(std::move(q));
  }

  // source NAME "PATH" [text="..."]: a file of the program that generated the kernel, which
  // instructions name with `@NAME:LINE` (docs/assembly.md, "Source locations").
  void source_statement() {
    const Token& kw = next();
    const Token& name = expect_ident("a source name");
    SourceFile f;
    f.name = name.text;
    if (peek().kind != TokenKind::string)
      fail(peek(), "expected the path of source '" + f.name + "' (a quoted string), found " +
                       describe(peek()));
    f.path = next().text;
    declaration_options("source", "text", [&](const std::string& key) {
      if (key != "text") return false;
      if (peek().kind != TokenKind::string)
        fail(peek(), "expected the text of source '" + f.name + "' (a quoted string), found " +
                         describe(peek()));
      f.text = next().text;
      return true;
    });
    if (k_.sources.size() >= kMaxSourceFiles)
      fail(kw, "too many source files (at most " + std::to_string(kMaxSourceFiles) + ")");
    declare(name, NameKind::source, static_cast<std::uint32_t>(k_.sources.size()));
    k_.sources.push_back(std::move(f));
    Kernel one;
    one.sources = {k_.sources.back()};
    const std::string problem = source_table_problem(one);
    if (!problem.empty())
      fail(name, "source '" + name.text + "': " + problem.substr(problem.find(": ") + 2));
    source_bytes_ += k_.sources.back().text.size();
    if (source_bytes_ > kMaxSourceTotalBytes)
      fail(name, "source texts together exceed " + std::to_string(kMaxSourceTotalBytes) + " bytes");
  }

  // `@NAME:LINE` after an instruction: its line in source NAME.
  SourceLocation location() {
    next();  // '@'
    SourceLocation loc;
    loc.file = lookup_kind(expect_ident("a source name after '@'"), NameKind::source);
    expect(":", "between the source name and the line (write '@NAME:LINE')");
    loc.line = static_cast<std::uint32_t>(
        parse_int("a source line", 1, std::numeric_limits<std::uint32_t>::max()));
    return loc;
  }

  // --- operands
  AccessPattern parse_pattern(const std::string& what) {
    const Token& name = peek();
    if (name.kind != TokenKind::ident)
      fail(name, "expected " + what + " (a tensor or allocation), found " + describe(name));
    next();
    const NameEntry& e = lookup(name);
    BufferView view;
    if (e.kind == NameKind::tensor) {
      view = view_of(k_.tensors[e.index], e.index);
    } else if (e.kind == NameKind::allocation) {
      view = view_of(k_.allocations[e.index], e.index);
    } else {
      fail(name, "'" + name.text + "' is " + kKindNames[static_cast<int>(e.kind)] +
                     ", not a tensor or allocation");
    }
    try {
      if (peek().is(".")) {
        next();
        view = reinterpret(view, parse_dtype_name());
      }
      if (peek().is("{")) return raw(view);
      std::vector<Ix> indices;
      if (peek().is("[")) {
        next();
        while (!peek().is("]")) {
          if (!indices.empty()) expect(",", "between indices of '" + name.text + "'");
          indices.push_back(index());
        }
        next();
      }
      return slice(view, indices);
    } catch (const Error& err) {
      if (std::string_view(err.what()).rfind(file_ + ":", 0) == 0) throw;
      fail(name, err.what());
    }
  }

  Ix index() {
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    auto bound = [&] { return parse_int("an index", 0, max); };
    Ix ix;
    if (!peek().is(":")) {
      const std::int64_t first = bound();
      if (!peek().is(":")) return Ix(first);
      ix.start = first;
    }
    next();  // ':'
    if (peek().kind == TokenKind::number || peek().is("-")) ix.stop = bound();
    if (peek().is(":")) {
      next();
      ix.step = parse_int("a step", 1, max);
    }
    return ix;
  }

  AccessPattern raw(const BufferView& view) {
    const Token& open = next();
    RawPattern r;
    bool have_ap = false;
    std::set<std::string> seen;
    while (!peek().is("}")) {
      if (!seen.empty()) expect(",", "between the fields of a raw pattern");
      const Token& key = expect_ident("a raw pattern field (ap, start, offset)");
      expect("=", "after '" + key.text + "'");
      if (!seen.insert(key.text).second) fail(key, "field '" + key.text + "' given twice");
      if (key.text == "start") {
        r.start_partition = parse_uint<std::uint32_t>("start");
      } else if (key.text == "offset") {
        r.byte_offset = static_cast<std::uint64_t>(
            parse_int("offset", 0, std::numeric_limits<std::int64_t>::max()));
      } else if (key.text == "ap") {
        have_ap = true;
        expect("[", "to open the ap list");
        int pairs = 0;
        while (!peek().is("]")) {
          if (pairs) expect(",", "between the [stride, size] pairs");
          const Token& at = peek();
          expect("[", "to open a [stride, size] pair");
          if (pairs == 0) {
            r.partition_stride =
                parse_int("the partition stride", std::numeric_limits<std::int64_t>::min(),
                          std::numeric_limits<std::int64_t>::max());
            expect(",", "in the [partition_stride, partitions] pair");
            r.partitions = parse_uint<std::uint32_t>("partitions");
          } else {
            if (pairs > kMaxFreeDims)
              fail(at, "too many dims: a pattern has at most " + std::to_string(kMaxFreeDims) +
                           " free dims after the partition pair");
            Dim d;
            d.stride = static_cast<std::int32_t>(
                parse_int("a stride", std::numeric_limits<std::int32_t>::min(),
                          std::numeric_limits<std::int32_t>::max()));
            expect(",", "in a [stride, size] pair");
            d.size = parse_uint<std::uint32_t>("a size");
            r.dims.push_back(d);
          }
          expect("]", "to close a [stride, size] pair");
          ++pairs;
        }
        next();
        if (r.dims.empty())
          fail(open,
               "the ap list needs the partition pair and at least one free [stride, size] pair");
      } else {
        fail(key, "unknown raw pattern field '" + key.text + "' (expected ap, start, offset)");
      }
    }
    next();
    if (!have_ap)
      fail(open, "a raw pattern needs ap=[[partition_stride, partitions], [stride, size]...]");
    return raw_pattern(view, r);
  }

  // One value of the field `key` of `op`, read as its kind reads it (field_syntax.hpp).
  void field_value(std::string_view key, Operation& op, const std::string& opname) {
    std::visit(
        [&](auto& x) {
          for_each_field(x, [&](const auto& f, auto& v) {
            if (f.key == key)
              AsmField<std::decay_t<decltype(v)>>::parse(
                  *this, v, field_what(static_cast<Opcode>(op.index()), key, opname));
          });
        },
        op);
  }

  // "KEY of OPCODE", what the field syntax names in messages: made once per field.
  const std::string& field_what(Opcode opcode, std::string_view key, const std::string& opname) {
    std::vector<std::string>& whats = whats_[static_cast<std::size_t>(opcode)];
    const auto& spec = fields(opcode);
    if (whats.empty()) whats.resize(spec.size());
    std::size_t f = 0;
    while (f + 1 < spec.size() && spec[f].key != key)
      ++f;
    if (whats[f].empty()) whats[f] = std::string(key) + " of " + opname;
    return whats[f];
  }

  bool at_clause() const {
    return (peek().is_ident("wait") || peek().is_ident("signal")) &&
           peek(1).kind == TokenKind::ident;
  }

  void instruction() {
    const Token& op_tok = next();
    auto opcode = parse_opcode(op_tok.text);
    if (!opcode) fail(op_tok, "unknown opcode '" + op_tok.text + "'");
    if (!section_)
      fail(op_tok, "instruction '" + op_tok.text +
                       "' outside an engine section (start one with e.g. 'vector:')");
    const std::string& opname = op_tok.text;
    Instruction ins;
    ins.source_line = static_cast<std::uint32_t>(op_tok.line);
    ins.op = default_operation(*opcode);
    const auto& spec = fields(*opcode);
    std::vector<const Field*> positional;
    for (const auto& f : spec)
      if (f.positional) positional.push_back(&f);
    // The operands' or options' names, for messages only.
    const auto names = [&](bool operands_wanted) {
      std::string s;
      for (const auto& f : spec)
        if (f.positional == operands_wanted) s += (s.empty() ? "" : ", ") + std::string(f.key);
      return s;
    };
    std::size_t operands = 0;
    std::vector<bool> given(spec.size(), false);  // options given, by position in spec
    bool any_option = false;
    const auto option_given = [&](std::string_view key) {
      for (std::size_t c = 0; c < spec.size(); ++c)
        if (!spec[c].positional && spec[c].key == key) return bool(given[c]);
      return false;
    };
    if (!at_eos() && !at_clause() && !peek().is("@")) {
      for (;;) {
        const Token& item = peek();
        if (item.kind == TokenKind::ident && peek(1).is("=")) {
          next();
          next();
          std::size_t f = spec.size();
          for (std::size_t c = 0; c < spec.size(); ++c)
            if (!spec[c].positional && spec[c].key == item.text) f = c;
          if (f == spec.size()) {
            const std::string option_names = names(false);
            fail(item, "unknown option '" + item.text + "' for " + opname +
                           (option_names.empty() ? " (it takes none)"
                                                 : " (expected " + option_names + ")"));
          }
          if (given[f]) fail(item, "option '" + item.text + "' given twice");
          given[f] = true;
          any_option = true;
          field_value(spec[f].key, ins.op, opname);
        } else {
          if (any_option) fail(item, "operand after options: operands come first");
          if (operands == positional.size())
            fail(item, "too many operands for " + opname + ": it takes " +
                           std::to_string(positional.size()) +
                           (positional.empty() ? "" : " (" + names(true) + ")"));
          field_value(positional[operands]->key, ins.op, opname);
          ++operands;
        }
        if (!peek().is(",")) break;
        next();
      }
    }
    if (!at_eos() && !at_clause() && !peek().is("@"))
      fail(peek(), "unexpected " + describe(peek()) + " after the operands of " + opname);
    if (operands < positional.size())
      fail(op_tok, "missing operand: " + opname + " takes " + std::to_string(positional.size()) +
                       " (" + names(true) + "), got " + std::to_string(operands));
    for (std::size_t c = 0; c < spec.size(); ++c) {
      const Field& f = spec[c];
      if (!f.positional && f.required && !given[c])
        fail(op_tok, "missing option: " + opname + " needs " + std::string(f.key) + "=");
      if (!f.depends_on.empty() && given[c] && !option_given(f.depends_on))
        fail(op_tok, "option '" + std::string(f.key) + "' of " + opname + " needs '" +
                         std::string(f.depends_on) + "'");
    }
    while (at_clause()) {
      if (next().text == "wait") {
        do {
          if (peek().is(",")) next();
          SemWait w;
          w.sem = static_cast<std::uint16_t>(
              lookup_kind(expect_ident("a semaphore"), NameKind::semaphore));
          expect(">=", "in a wait (write 'wait SEM>=VALUE')");
          w.value = parse_uint<std::uint32_t>("a wait value");
          ins.waits.push_back(w);
        } while (peek().is(","));
      } else {
        do {
          if (peek().is(",")) next();
          SemSignal s;
          s.sem = static_cast<std::uint16_t>(
              lookup_kind(expect_ident("a semaphore"), NameKind::semaphore));
          if (peek().is("+=")) {
            next();
            s.value = parse_uint<std::uint32_t>("an increment");
          } else if (peek().is("=")) {
            next();
            s.kind = SemUpdate::set;
            s.value = parse_uint<std::uint32_t>("a semaphore value");
          }
          ins.signals.push_back(s);
        } while (peek().is(","));
      }
    }
    const SourceLocation loc = peek().is("@") ? location() : SourceLocation{};
    if (!at_eos()) fail(peek(), "unexpected " + describe(peek()) + " after " + opname);
    next();
    InstructionStream& stream = k_.stream(*section_);
    stream.push_back(std::move(ins));
    if (loc.known()) stream.set_location(stream.size() - 1, loc);
  }

  std::string file_;
  mutable TokenStream tokens_;  // peek() lexes on demand
  Kernel k_;
  std::vector<bool> fixed_;  // allocations with an explicit offset
  std::map<std::string, NameEntry> names_;
  std::array<std::vector<std::string>, kOpcodeCount> whats_;  // field_what's, by opcode
  std::optional<Engine> section_;
  bool have_kernel_ = false;
  int kernel_line_ = 0;
  std::size_t source_bytes_ = 0;  // text of the sources declared so far
};

}  // namespace

struct FieldReader::Impl {
  Parser parser;
};

FieldReader::FieldReader(const Kernel& declared, const std::string& file_name)
    : impl_(std::make_unique<Impl>(Impl{Parser(declared, file_name)})) {}

FieldReader::~FieldReader() = default;

void FieldReader::read(Operation& op, std::string_view key, std::string_view text,
                       std::uint32_t line) {
  impl_->parser.read_field(op, key, text, static_cast<int>(line),
                           std::string(opcode_name(static_cast<Opcode>(op.index()))));
}

Kernel assemble(std::string_view source, const std::string& file_name) {
  return Parser(source, file_name).run();
}

Kernel assemble_file(const std::string& path) {
  Kernel k = assemble(read_text_file(path, Limit::text_file_bytes), path);
  check_kernel_resources(k, path);
  return k;
}

}  // namespace neuronsim::isa
