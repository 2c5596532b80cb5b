// _core.NkiKernelBuilder: a traced neuronsim.nki kernel's instruction lines (the text of
// .asm()) and, from the same reading of each instruction, the isa::Kernel the assembler
// would make of those lines, built without parsing them (python/neuronsim/nki/_lower.py).
// Parsing the text was a fifth of the front end's time on the matmul tutorial's published
// shape (docs/python.md, "Tracing speed"). The declarations (kernel, tensors, pools,
// semaphores, queues) are few lines and are assembled from their text; operands are made
// into access patterns as the assembler makes a raw pattern (isa/view.hpp); every other
// field value is read from its text by the assembler's own field syntax
// (isa::FieldReader). Whatever the builder cannot take as the assembler would (a name it
// does not know, a value out of a field's range, a missing operand) stops the building:
// the caller then assembles the text, which gives the assembler's own error.
// NEURONSIM_NKI_CHECK_BUILD=1 makes _lower.py assemble the text too and compare the two
// kernels (the Python tests run with it).
#include <Python.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "asm/assembler.hpp"
#include "asm/syntax.hpp"
#include "base/error.hpp"
#include "isa/for_each_field.hpp"
#include "isa/kernel.hpp"
#include "isa/view.hpp"
#include "python/core/bindings.hpp"
#include "python/core/kernel_object.hpp"
#include "python/core/nki_traced.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {
namespace {

using isa::asm_detail::Field;

// What stops the building (the text is assembled instead).
struct NotBuilt {};

template <typename T>
constexpr bool kIsPattern =
    std::is_same_v<T, isa::AccessPattern> || std::is_same_v<T, std::optional<isa::AccessPattern>>;

// Whether v is a value of T (int32_t or uint32_t: both within int64_t's range).
template <typename T>
bool in_range(std::int64_t v) {
  return v >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
         v <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
}

template <typename Map>
std::uint32_t index_in(const Map& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) throw NotBuilt{};
  return it->second;
}

template <typename Items>
std::unordered_map<std::string, std::uint32_t> indices(const Items& items) {
  std::unordered_map<std::string, std::uint32_t> m;
  for (std::size_t i = 0; i < items.size(); ++i)
    m.emplace(items[i].name, static_cast<std::uint32_t>(i));
  return m;
}

class NkiKernelBuilder {
 public:
  NkiKernelBuilder(const std::string& declarations, const std::string& name)
      : name_(name),
        kernel_(isa::assemble(declarations, name)),
        reader_(kernel_, name),
        tensors_(indices(kernel_.tensors)),
        allocations_(indices(kernel_.allocations)),
        semaphores_(indices(kernel_.semaphores)) {}

  // Appends each instruction's line to `lines` (four spaces, its text, two spaces and
  // at(its location), the source suffix) with line_map[the line's number] = its location,
  // and, while the building goes on, the instruction to `engine`'s stream.
  void add_section(const std::string& engine, const py::list& instrs, py::handle view_type,
                   py::handle at, py::list& lines, py::dict& line_map) {
    const std::optional<isa::Engine> e = isa::parse_engine(engine);
    if (!e) built_ = false;
    std::string line;
    for (py::handle ins : instrs) {
      read_instr(ins.ptr(), view_type.ptr(), traced_);
      line.assign("    ");
      put_instr(line, traced_);
      line += "  ";
      const py::object location = attr(ins.ptr(), "location");
      const py::object suffix = owned(PyObject_CallOneArg(at.ptr(), location.ptr()));
      const std::size_t suffix_at = line.size();
      put_str(line, suffix.ptr());
      lines.append(python_text(line));
      const auto number = static_cast<std::uint32_t>(lines.size());
      line_map[py::int_(number)] = location;
      if (built_) build(*e, number, std::string_view(line).substr(suffix_at));
    }
  }

  // Ends the building: the source files the suffixes named (name, path), in the order the
  // text declares them, and the lines the declarations insert above the instructions.
  // Whether the kernel was built (else the caller assembles the text).
  bool finish(const std::vector<std::pair<std::string, std::string>>& sources,
              std::uint32_t shift) {
    if (!built_ || sources.size() != source_names_.size()) return built_ = false;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].first != source_names_[i]) return built_ = false;
      kernel_.sources.push_back(isa::SourceFile{sources[i].first, sources[i].second, ""});
    }
    for (isa::InstructionStream& s : kernel_.streams)
      for (std::size_t i = 0; i < s.size(); ++i)
        s.set_source_line(i, s.source_line(i) + shift);
    return true;
  }

  // The built kernel, checked as neuronsim.assemble checks an assembled one (once).
  KernelObject take() {
    if (!built_ || taken_) throw Error(name_ + ": the traced kernel was not built");
    taken_ = true;
    return checked_kernel(std::move(kernel_), name_, std::nullopt);
  }

 private:
  void build(isa::Engine engine, std::uint32_t line, std::string_view suffix) {
    try {
      isa::Instruction ins = instruction(line);
      const isa::SourceLocation loc = location(suffix);
      isa::InstructionStream& stream = kernel_.stream(engine);
      stream.push_back(ins);
      if (loc.known()) stream.set_location(stream.size() - 1, loc);
    } catch (const NotBuilt&) {
      built_ = false;
    } catch (const Error&) {
      built_ = false;  // the assembler says why, from the text
    }
  }

  isa::Instruction instruction(std::uint32_t line) {
    const std::optional<isa::Opcode> opcode = isa::parse_opcode(traced_.opcode);
    if (!opcode) throw NotBuilt{};
    isa::Instruction ins;
    ins.source_line = line;
    ins.op = isa::asm_detail::default_operation(*opcode);
    const std::vector<Field>& spec = isa::asm_detail::fields(*opcode);
    std::vector<bool> given(spec.size(), false);
    std::size_t operand = 0;
    for (std::size_t f = 0; f < spec.size(); ++f) {
      if (!spec[f].positional) continue;
      if (operand == traced_.operands.size()) throw NotBuilt{};
      set_view(ins.op, spec[f].key, traced_.operands[operand++], line);
      given[f] = true;
    }
    if (operand != traced_.operands.size()) throw NotBuilt{};
    for (const TracedOption& o : traced_.options) {
      std::size_t f = 0;
      while (f < spec.size() && (spec[f].positional || spec[f].key != o.key))
        ++f;
      if (f == spec.size() || given[f]) throw NotBuilt{};
      given[f] = true;
      if (o.is_view) {
        set_view(ins.op, spec[f].key, o.view, line);
      } else {
        reader_.read(ins.op, spec[f].key, o.text, line);
      }
    }
    for (std::size_t f = 0; f < spec.size(); ++f) {
      if (spec[f].required && !given[f]) throw NotBuilt{};
      if (given[f] && !spec[f].depends_on.empty()) {
        std::size_t d = 0;
        while (d < spec.size() && spec[d].key != spec[f].depends_on)
          ++d;
        if (d == spec.size() || !given[d]) throw NotBuilt{};
      }
    }
    for (const auto& [sem, value] : traced_.waits) {
      isa::SemWait w;
      w.sem = static_cast<std::uint16_t>(index_in(semaphores_, sem));
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), w.value);
      if (ec != std::errc() || end != value.data() + value.size()) throw NotBuilt{};
      ins.waits.push_back(w);
    }
    for (const std::string& sem : traced_.signals) {
      isa::SemSignal s;
      s.sem = static_cast<std::uint16_t>(index_in(semaphores_, sem));
      ins.signals.push_back(s);
    }
    return ins;
  }

  // Field `key` of `op` from a view: an access pattern made directly when the field is
  // one, else from the view's text.
  void set_view(isa::Operation& op, std::string_view key, const TracedView& v, std::uint32_t line) {
    bool set = false;
    std::visit(
        [&](auto& x) {
          isa::for_each_field(x, [&](const auto& f, auto& value) {
            if constexpr (kIsPattern<std::decay_t<decltype(value)>>) {
              if (f.key == key) {
                value = pattern(v);
                set = true;
              }
            }
          });
        },
        op);
    if (set) return;
    text_.clear();
    put_view(text_, v);
    reader_.read(op, key, text_, line);
  }

  // The assembler's raw pattern of `buffer[.dtype]{ap=..., start=..., offset=...}`.
  isa::AccessPattern pattern(const TracedView& v) {
    isa::BufferView view;
    if (v.hbm) {
      const std::uint32_t i = index_in(tensors_, v.buffer);
      view = isa::view_of(kernel_.tensors[i], i);
    } else {
      const std::uint32_t i = index_in(allocations_, v.buffer);
      view = isa::view_of(kernel_.allocations[i], i);
      if (v.dtype != "uint8") {
        const std::optional<isa::DType> d = isa::parse_dtype(v.dtype);
        if (!d) throw NotBuilt{};
        view = isa::reinterpret(view, *d);
      }
    }
    if (!in_range<std::uint32_t>(v.partitions) || !in_range<std::uint32_t>(v.pstart) ||
        v.offset < 0 || v.dims.size() > isa::kMaxFreeDims)
      throw NotBuilt{};
    isa::RawPattern r;
    r.partition_stride = v.pstride;
    r.partitions = static_cast<std::uint32_t>(v.partitions);
    r.start_partition = static_cast<std::uint32_t>(v.pstart);
    r.byte_offset = static_cast<std::uint64_t>(v.offset);
    r.dims.reserve(v.dims.size());
    for (const auto& [stride, size] : v.dims) {
      if (!in_range<std::int32_t>(stride) || !in_range<std::uint32_t>(size)) throw NotBuilt{};
      isa::Dim d;
      d.stride = static_cast<std::int32_t>(stride);
      d.size = static_cast<std::uint32_t>(size);
      r.dims.push_back(d);
    }
    return isa::raw_pattern(view, r);
  }

  // `@NAME:LINE` -> the source file's index (in order of first use) and the line.
  isa::SourceLocation location(std::string_view suffix) {
    isa::SourceLocation loc;
    if (suffix.empty()) return loc;
    const std::size_t colon = suffix.rfind(':');
    if (suffix[0] != '@' || colon == std::string_view::npos) throw NotBuilt{};
    const std::string file(suffix.substr(1, colon - 1));
    auto it = source_index_.find(file);
    if (it == source_index_.end()) {
      it = source_index_.emplace(file, static_cast<std::uint32_t>(source_names_.size())).first;
      source_names_.push_back(file);
    }
    loc.file = it->second;
    const std::string_view digits = suffix.substr(colon + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), loc.line);
    if (ec != std::errc() || end != digits.data() + digits.size() || loc.line == 0)
      throw NotBuilt{};
    return loc;
  }

  std::string name_;
  isa::Kernel kernel_;
  isa::FieldReader reader_;
  std::unordered_map<std::string, std::uint32_t> tensors_, allocations_, semaphores_;
  std::unordered_map<std::string, std::uint32_t> source_index_;
  std::vector<std::string> source_names_;
  TracedInstr traced_;  // the instruction being built (its storage reused)
  std::string text_;
  bool built_ = true;
  bool taken_ = false;
};

// "" when two kernels are the same, source lines and locations included; else the first
// difference, for the check of NEURONSIM_NKI_CHECK_BUILD.
std::string kernel_difference(const isa::Kernel& a, const isa::Kernel& b) {
  if (!(a == b)) {
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const isa::InstructionStream &x = a.streams[static_cast<std::size_t>(e)],
                                   &y = b.streams[static_cast<std::size_t>(e)];
      if (x.size() != y.size())
        return "engine " + std::to_string(e) + ": " + std::to_string(x.size()) + " vs " +
               std::to_string(y.size()) + " instructions";
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] != y[i] || x.location(i) != y.location(i))
          return "engine " + std::to_string(e) + " instruction " + std::to_string(i) + " (line " +
                 std::to_string(y.source_line(i)) + ") differs";
    }
    return "the declarations differ";
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const isa::InstructionStream &x = a.streams[static_cast<std::size_t>(e)],
                                 &y = b.streams[static_cast<std::size_t>(e)];
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x.source_line(i) != y.source_line(i))
        return "engine " + std::to_string(e) + " instruction " + std::to_string(i) +
               ": source line " + std::to_string(x.source_line(i)) + " vs " +
               std::to_string(y.source_line(i));
  }
  return "";
}

}  // namespace

void bind_nki_kernel(py::module_& m) {
  py::class_<NkiKernelBuilder>(m, "NkiKernelBuilder",
                               "A traced kernel's instruction lines and, built alongside, "
                               "its Kernel (python/core/nki_kernel.cpp).")
      .def(py::init<const std::string&, const std::string&>(), py::arg("declarations"),
           py::arg("name"))
      .def("add_section", &NkiKernelBuilder::add_section, py::arg("engine"), py::arg("instrs"),
           py::arg("view_type"), py::arg("at"), py::arg("lines"), py::arg("line_map"))
      .def("finish", &NkiKernelBuilder::finish, py::arg("sources"), py::arg("shift"))
      .def("take", &NkiKernelBuilder::take);
  m.def(
      "nki_kernel_difference",
      [](const KernelObject& a, const KernelObject& b) {
        return kernel_difference(a.kernel(), b.kernel());
      },
      py::arg("built"), py::arg("assembled"));
}

}  // namespace neuronsim::python
