#include "builder/builder.hpp"

#include <limits>

#include "base/error.hpp"
#include "isa/identifier.hpp"
#include "isa/literal.hpp"
#include "isa/placement.hpp"

namespace neuronsim::isa {

namespace {

// Every builder error names where it came from, like the assembler's name the file.
[[noreturn]] void fail(const std::string& what, const std::string& reason) {
  throw Error("builder: " + what + ": " + reason);
}

}  // namespace

// --- Buffer

AccessPattern Buffer::slice_n(const std::vector<Ix>& indices) const {
  try {
    return isa::slice(view_, indices);
  } catch (const Error& e) {
    fail("slice of '" + view_.name + "'", e.what());
  }
}

Buffer Buffer::as(DType t) const {
  try {
    return Buffer(reinterpret(view_, t));
  } catch (const Error& e) {
    fail("view of '" + view_.name + "'", e.what());
  }
}

AccessPattern Buffer::raw(std::uint32_t start_partition, std::uint32_t partitions,
                          std::int64_t partition_stride, std::uint64_t byte_offset,
                          const std::vector<Dim>& dims) const {
  try {
    return raw_pattern(
        view_, RawPattern{partition_stride, partitions, dims, start_partition, byte_offset});
  } catch (const Error& e) {
    fail("raw pattern of '" + view_.name + "'", e.what());
  }
}

// --- Appended

template <typename Self>
Instruction& Appended<Self>::instruction() {
  return b_->staged_[static_cast<int>(engine_)][index_];
}

template <typename Self>
Self& Appended<Self>::wait(Sem sem, std::uint32_t value) {
  instruction().waits.push_back(SemWait{sem.index, value});
  return self();
}

template <typename Self>
Self& Appended<Self>::signal(Sem sem, std::uint32_t n) {
  instruction().signals.push_back(SemSignal{sem.index, SemUpdate::increment, n});
  return self();
}

template <typename Self>
Self& Appended<Self>::signal_set(Sem sem, std::uint32_t value) {
  instruction().signals.push_back(SemSignal{sem.index, SemUpdate::set, value});
  return self();
}

template class Appended<InstrRef>;
template class Appended<ActivationRef>;
template class Appended<TensorScalarRef>;

ActivationRef& ActivationRef::scale(Scalar s) {
  op<Activation>().scale = s.value;
  return *this;
}
ActivationRef& ActivationRef::bias(const AccessPattern& ap) {
  op<Activation>().bias = ap;
  return *this;
}
ActivationRef& ActivationRef::reduce(const AccessPattern& reduce_dst) {
  op<Activation>().reduce_dst = reduce_dst;
  return *this;
}

TensorScalarRef& TensorScalarRef::then(AluOp op1, Scalar arg1) {
  op<TensorScalar>().op1 = op1;
  op<TensorScalar>().arg1 = arg1.value;
  return *this;
}
TensorScalarRef& TensorScalarRef::reverse0(bool on) {
  op<TensorScalar>().reverse0 = on;
  return *this;
}
TensorScalarRef& TensorScalarRef::reverse1(bool on) {
  op<TensorScalar>().reverse1 = on;
  return *this;
}
TensorScalarRef& TensorScalarRef::reduce(const AccessPattern& reduce_dst, AluOp reduce_op) {
  op<TensorScalar>().reduce_dst = reduce_dst;
  op<TensorScalar>().reduce_op = reduce_op;
  return *this;
}

// --- Stream

std::size_t Stream::push(Operation op) {
  auto& s = b_->staged_[static_cast<int>(engine_)];
  Instruction ins;
  ins.op = std::move(op);
  s.push_back(std::move(ins));
  return s.size() - 1;
}

InstrRef Stream::append(Operation op) {
  return InstrRef(b_, engine_, push(std::move(op)));
}

ActivationRef Stream::activation(const AccessPattern& dst, const AccessPattern& src, ActFunc func) {
  Activation a;
  a.dst = dst;
  a.src = src;
  a.func = func;
  return ActivationRef(b_, engine_, push(a));
}
TensorScalarRef Stream::tensor_scalar(const AccessPattern& dst, const AccessPattern& src, AluOp op0,
                                      Scalar arg0) {
  TensorScalar t;
  t.dst = dst;
  t.src = src;
  t.op0 = op0;
  t.arg0 = arg0.value;
  return TensorScalarRef(b_, engine_, push(t));
}

// --- Builder

Builder::Builder(std::string name, std::string target) {
  k_.name = std::move(name);
  k_.target = std::move(target);
}

void Builder::declare(const std::string& name, const char* what) {
  if (!isa::is_identifier(name) || name == "inf" || name == "nan" || name == "true" ||
      name == "false")
    fail(std::string(what) + " '" + name + "'",
         "a name is an identifier ([A-Za-z_][A-Za-z0-9_]*) other than inf, nan, true, false");
  if (!names_.insert(name).second) fail(std::string(what) + " '" + name + "'", "duplicate name");
}

Buffer Builder::add_tensor(HbmTensor t) {
  declare(t.name, "tensor");
  const auto index = static_cast<std::uint32_t>(k_.tensors.size());
  k_.tensors.push_back(std::move(t));
  return Buffer(view_of(k_.tensors.back(), index));
}

Buffer Builder::hbm(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                    TensorRole role) {
  if (role == TensorRole::constant)
    fail("tensor '" + name + "'",
         "constants are declared with constant(), constant_fill() or "
         "constant_bytes()");
  HbmTensor h;
  h.name = name;
  h.dtype = t;
  h.shape = std::move(shape);
  h.role = role;
  return add_tensor(std::move(h));
}
Buffer Builder::input(const std::string& name, DType t, std::vector<std::uint64_t> shape) {
  return hbm(name, t, std::move(shape), TensorRole::input);
}
Buffer Builder::output(const std::string& name, DType t, std::vector<std::uint64_t> shape) {
  return hbm(name, t, std::move(shape), TensorRole::output);
}
Buffer Builder::scratch(const std::string& name, DType t, std::vector<std::uint64_t> shape) {
  return hbm(name, t, std::move(shape), TensorRole::scratch);
}

Buffer Builder::constant_bytes(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                               std::vector<std::uint8_t> bytes) {
  HbmTensor h;
  h.name = name;
  h.dtype = t;
  h.shape = std::move(shape);
  h.role = TensorRole::constant;
  h.data = std::move(bytes);
  if (h.data.size() != h.bytes())
    fail("constant '" + name + "'", std::to_string(h.data.size()) +
                                        " bytes given, its shape needs " +
                                        std::to_string(h.bytes()));
  return add_tensor(std::move(h));
}

Buffer Builder::constant(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                         const std::vector<double>& values) {
  HbmTensor probe;
  probe.dtype = t;
  probe.shape = shape;
  if (values.size() != probe.elems())
    fail("constant '" + name + "'", std::to_string(values.size()) +
                                        " values given, its shape holds " +
                                        std::to_string(probe.elems()));
  const std::size_t size = dtype_size(t);
  std::vector<std::uint8_t> bytes(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint8_t* out = bytes.data() + i * size;
    const double v = values[i];
    if (is_float(t)) {
      store_fp32(t, static_cast<float>(v), out);
      continue;
    }
    isa::Literal lit;
    if (v != static_cast<double>(static_cast<std::int64_t>(v)))
      fail("constant '" + name + "'", "value " + isa::format_double(v) + " is not an integer (" +
                                          std::string(dtype_name(t)) + ")");
    const std::int64_t iv = static_cast<std::int64_t>(v);
    lit.negative = iv < 0;
    lit.text = std::to_string(lit.negative ? -iv : iv);
    if (auto problem = isa::encode_literal(t, lit, out)) fail("constant '" + name + "'", *problem);
  }
  return constant_bytes(name, t, std::move(shape), std::move(bytes));
}

Buffer Builder::constant_fill(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                              double fill) {
  HbmTensor probe;
  probe.shape = shape;
  return constant(name, t, std::move(shape), std::vector<double>(probe.elems(), fill));
}

Buffer Builder::allocation(MemSpace space, const std::string& name, DType t,
                           const std::vector<std::uint32_t>& shape, std::uint32_t start_partition,
                           std::optional<std::uint32_t> byte_offset) {
  if (shape.empty())
    fail("allocation '" + name + "'", "the shape needs a partition count: [partitions, free...]");
  declare(name, "allocation");
  Allocation a;
  a.name = name;
  a.space = space;
  a.dtype = t;
  a.partitions = shape[0];
  a.free_shape.assign(shape.begin() + 1, shape.end());
  a.start_partition = start_partition;
  a.byte_offset = byte_offset.value_or(0);
  const auto index = static_cast<std::uint32_t>(k_.allocations.size());
  k_.allocations.push_back(std::move(a));
  fixed_.push_back(byte_offset.has_value());
  return Buffer(view_of(k_.allocations.back(), index));
}

Buffer Builder::sbuf(const std::string& name, DType t, const std::vector<std::uint32_t>& shape,
                     std::uint32_t start_partition, std::optional<std::uint32_t> byte_offset) {
  return allocation(MemSpace::sbuf, name, t, shape, start_partition, byte_offset);
}
Buffer Builder::psum(const std::string& name, DType t, const std::vector<std::uint32_t>& shape,
                     std::uint32_t start_partition, std::optional<std::uint32_t> byte_offset) {
  return allocation(MemSpace::psum, name, t, shape, start_partition, byte_offset);
}

Sem Builder::semaphore(const std::string& name, std::uint32_t initial) {
  declare(name, "semaphore");
  if (k_.semaphores.size() > std::numeric_limits<std::uint16_t>::max())
    fail("semaphore '" + name + "'", "too many semaphores");
  k_.semaphores.push_back(Semaphore{name, initial});
  return Sem{static_cast<std::uint16_t>(k_.semaphores.size() - 1)};
}

Queue Builder::queue(const std::string& name, std::uint8_t first_engine, std::uint8_t engines) {
  declare(name, "queue");
  if (k_.queues.size() > std::numeric_limits<std::uint16_t>::max())
    fail("queue '" + name + "'", "too many queues");
  k_.queues.push_back(DmaQueue{name, first_engine, engines});
  return Queue{static_cast<std::uint16_t>(k_.queues.size() - 1)};
}

Kernel Builder::build() const {
  Kernel k = k_;
  for (int e = 0; e < kEngineCount; ++e)
    k.streams[e] = InstructionStream(staged_[e]);
  place_allocations(k.allocations, fixed_);
  return k;
}

}  // namespace neuronsim::isa
