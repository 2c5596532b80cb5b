#include "isa/view.hpp"

#include <limits>

#include "base/error.hpp"

namespace neuronsim::isa {

namespace {

bool is_hbm(const BufferView& v) {
  return v.space == MemSpace::hbm;
}

// Row-major element strides of the axes that address memory within one partition row:
// every axis for HBM; the free axes (1..) for SBUF/PSUM, whose axis 0 is the lane.
std::vector<std::uint64_t> axis_strides(const BufferView& v) {
  std::vector<std::uint64_t> st(v.shape.size(), 0);
  std::uint64_t s = 1;
  const std::size_t first = is_hbm(v) ? 0 : 1;
  for (std::size_t j = v.shape.size(); j-- > first;) {
    st[j] = s;
    s *= v.shape[j];
  }
  return st;
}

std::string axis_text(const BufferView& v, std::size_t axis) {
  return "axis " + std::to_string(axis) + " of '" + v.name + "' (size " +
         std::to_string(v.shape[axis]) + ")";
}

struct Resolved {
  std::uint64_t start = 0, size = 1, step = 1;
  bool single = false;
};

Resolved resolve(const BufferView& v, std::size_t axis, const Ix& ix) {
  const std::uint64_t d = v.shape[axis];
  Resolved r;
  r.single = ix.single;
  if (ix.single) {
    const std::int64_t i = *ix.start;
    if (i < 0 || static_cast<std::uint64_t>(i) >= d)
      throw Error("index " + std::to_string(i) + " out of range for " + axis_text(v, axis));
    r.start = static_cast<std::uint64_t>(i);
    return r;
  }
  if (ix.step < 1) throw Error("slice step " + std::to_string(ix.step) + " must be positive");
  const std::int64_t a = ix.start.value_or(0);
  const std::int64_t b = ix.stop ? *ix.stop : static_cast<std::int64_t>(d);
  const std::string text = std::to_string(a) + ":" + std::to_string(b);
  if (a < 0 || b < 0 || static_cast<std::uint64_t>(b) > d)
    throw Error("slice " + text + " out of range for " + axis_text(v, axis));
  if (b <= a) throw Error("empty slice " + text + " of " + axis_text(v, axis));
  r.start = static_cast<std::uint64_t>(a);
  r.step = static_cast<std::uint64_t>(ix.step);
  r.size = (static_cast<std::uint64_t>(b - a) + r.step - 1) / r.step;
  return r;
}

Dim make_dim(const BufferView& v, std::uint64_t stride, std::uint64_t size) {
  if (stride > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    throw Error("stride " + std::to_string(stride) + " of '" + v.name + "' is too large");
  if (size > std::numeric_limits<std::uint32_t>::max())
    throw Error("size " + std::to_string(size) + " of '" + v.name + "' is too large");
  return Dim{static_cast<std::int32_t>(stride), static_cast<std::uint32_t>(size)};
}

std::string index_text(const Resolved& r, std::uint64_t d) {
  if (r.single) return std::to_string(r.start);
  if (r.start == 0 && r.step == 1 && r.size == d) return ":";
  std::string s =
      std::to_string(r.start) + ":" + std::to_string(r.start + (r.size - 1) * r.step + 1);
  if (r.step != 1) s += ":" + std::to_string(r.step);
  return s;
}

Ix to_ix(const Resolved& r) {
  if (r.single) return Ix(static_cast<std::int64_t>(r.start));
  return Ix(static_cast<std::int64_t>(r.start),
            static_cast<std::int64_t>(r.start + (r.size - 1) * r.step + 1),
            static_cast<std::int64_t>(r.step));
}

// Searches an assignment of the pattern's dims (in order) to increasing axes of the view
// such that slicing reproduces the pattern; the slice text, or nullopt.
class SliceSearch {
 public:
  SliceSearch(const BufferView& v, const AccessPattern& ap) : v_(v), ap_(ap) {}

  std::optional<std::string> run() {
    const std::size_t esize = dtype_size(v_.dtype);
    if (ap_.byte_offset % esize != 0) return std::nullopt;
    std::uint64_t offset = ap_.byte_offset / esize;
    st_ = axis_strides(v_);
    const std::size_t rank = v_.shape.size();
    const std::size_t first = is_hbm(v_) ? 0 : 1;
    axes_.assign(rank, Resolved{});
    for (std::size_t j = first; j < rank; ++j)
      axes_[j].single = true;
    // Mixed-radix digits of the offset are the starts of the memory axes.
    for (std::size_t j = rank; j-- > first;) {
      const std::uint64_t d = v_.shape[j];
      if (d == 0) return std::nullopt;
      axes_[j].start = j == first ? offset / st_[j] : (offset / st_[j]) % d;
      if (axes_[j].start >= d) return std::nullopt;
    }
    if (first == rank && offset != 0) return std::nullopt;
    if (!is_hbm(v_)) {
      if (rank == 0) return std::nullopt;
      axes_[0] = Resolved{ap_.start_partition, ap_.partitions, 1, false};
      if (ap_.partitions == 0 || std::uint64_t{ap_.start_partition} + ap_.partitions > v_.shape[0])
        return std::nullopt;
    } else if (ap_.start_partition != 0) {
      return std::nullopt;
    }
    // The dims to place: HBM's partition axis first, then the free dims. A lone (1,1)
    // free dim may also stand for "every free axis indexed".
    std::vector<std::pair<std::int64_t, std::uint64_t>> want;
    if (is_hbm(v_)) want.emplace_back(ap_.partition_stride, ap_.partitions);
    for (int i = 0; i < ap_.ndims; ++i)
      want.emplace_back(ap_.dims[i].stride, ap_.dims[i].size);
    if (place(want, 0, first)) return text_;
    const bool lone_unit = ap_.ndims == 1 && ap_.dims[0] == Dim{1, 1};
    if (lone_unit) {
      want.pop_back();
      if (is_hbm(v_) && ap_.partitions == 1 && ap_.partition_stride == 0) want.clear();
      if (place(want, 0, first)) return text_;
    }
    return std::nullopt;
  }

 private:
  bool place(const std::vector<std::pair<std::int64_t, std::uint64_t>>& want, std::size_t k,
             std::size_t from) {
    if (k == want.size()) return verify();
    const auto [stride, size] = want[k];
    for (std::size_t j = from; j < v_.shape.size(); ++j) {
      if (stride <= 0 || size == 0 || static_cast<std::uint64_t>(stride) % st_[j] != 0) continue;
      const std::uint64_t step = static_cast<std::uint64_t>(stride) / st_[j];
      const Resolved saved = axes_[j];
      if (saved.start + (size - 1) * step >= v_.shape[j]) continue;
      axes_[j] = Resolved{saved.start, size, step, false};
      if (place(want, k + 1, j + 1)) return true;
      axes_[j] = saved;
    }
    return false;
  }

  bool verify() {
    std::vector<Ix> ix;
    for (const auto& r : axes_)
      ix.push_back(to_ix(r));
    try {
      if (slice(v_, ix) != ap_) return false;
    } catch (const Error&) {
      return false;
    }
    bool whole = true;
    for (std::size_t j = 0; j < axes_.size(); ++j)
      whole = whole && index_text(axes_[j], v_.shape[j]) == ":";
    text_ = v_.name;
    if (v_.dtype != v_.declared) text_ += "." + std::string(dtype_name(v_.dtype));
    if (whole) return true;
    text_ += "[";
    for (std::size_t j = 0; j < axes_.size(); ++j)
      text_ += (j ? ", " : "") + index_text(axes_[j], v_.shape[j]);
    text_ += "]";
    return true;
  }

  const BufferView& v_;
  const AccessPattern& ap_;
  std::vector<std::uint64_t> st_;
  std::vector<Resolved> axes_;
  std::string text_;
};

std::string raw_text(const BufferView& v, const AccessPattern& ap) {
  std::string s = v.name;
  if (ap.dtype != v.declared) s += "." + std::string(dtype_name(ap.dtype));
  s += "{ap=[[" + std::to_string(ap.partition_stride) + ", " + std::to_string(ap.partitions) + "]";
  for (int i = 0; i < ap.ndims && i < kMaxFreeDims; ++i)
    s += ", [" + std::to_string(ap.dims[i].stride) + ", " + std::to_string(ap.dims[i].size) + "]";
  s += "]";
  if (ap.start_partition != 0) s += ", start=" + std::to_string(ap.start_partition);
  if (ap.byte_offset != 0) s += ", offset=" + std::to_string(ap.byte_offset);
  return s + "}";
}

}  // namespace

BufferView view_of(const HbmTensor& t, std::uint32_t index) {
  return BufferView{MemSpace::hbm, index, t.name, t.dtype, t.dtype, t.shape};
}

BufferView view_of(const Allocation& a, std::uint32_t index) {
  BufferView v{a.space, index, a.name, a.dtype, a.dtype, {a.partitions}};
  for (auto d : a.free_shape)
    v.shape.push_back(d);
  return v;
}

BufferView reinterpret(const BufferView& v, DType t) {
  BufferView r = v;
  r.dtype = t;
  const std::size_t from = dtype_size(v.dtype), to = dtype_size(t);
  if (from == to) return r;
  const std::size_t first = is_hbm(v) ? 0 : 1;
  if (v.shape.size() <= first)
    throw Error("cannot view '" + v.name + "' as " + std::string(dtype_name(t)) +
                ": it has no free axis to rescale");
  const std::uint64_t bytes = r.shape.back() * from;
  if (bytes % to != 0)
    throw Error("cannot view '" + v.name + "' as " + std::string(dtype_name(t)) +
                ": its innermost axis holds " + std::to_string(bytes) +
                " bytes, not a multiple of " + std::to_string(to));
  r.shape.back() = bytes / to;
  return r;
}

AccessPattern slice(const BufferView& v, const std::vector<Ix>& indices) {
  const std::size_t rank = v.shape.size();
  if (indices.size() > rank)
    throw Error("too many indices for '" + v.name + "': " + std::to_string(indices.size()) +
                " given, it has " + std::to_string(rank) + " axes");
  const auto st = axis_strides(v);
  AccessPattern ap;
  ap.space = v.space;
  ap.buffer = v.buffer;
  ap.dtype = v.dtype;
  std::vector<Dim> dims;
  std::uint64_t offset = 0;
  bool have_partition_axis = !is_hbm(v);
  for (std::size_t j = 0; j < rank; ++j) {
    const Resolved r = resolve(v, j, j < indices.size() ? indices[j] : Ix::all());
    if (!is_hbm(v) && j == 0) {
      if (r.step != 1) throw Error("the partition axis of '" + v.name + "' takes no step");
      ap.start_partition = static_cast<std::uint32_t>(r.start);
      ap.partitions = static_cast<std::uint32_t>(r.size);
      continue;
    }
    offset += r.start * st[j];
    if (r.single) continue;
    if (!have_partition_axis) {  // HBM: the first sliced axis is the partition axis
      have_partition_axis = true;
      const Dim d = make_dim(v, r.step * st[j], r.size);
      ap.partitions = d.size;
      ap.partition_stride = d.stride;
      continue;
    }
    dims.push_back(make_dim(v, r.step * st[j], r.size));
  }
  if (dims.size() > static_cast<std::size_t>(kMaxFreeDims))
    throw Error("too many free dims for '" + v.name + "': " + std::to_string(dims.size()) +
                " (at most " + std::to_string(kMaxFreeDims) + ")");
  if (dims.empty()) dims.push_back(Dim{1, 1});
  ap.ndims = static_cast<std::uint8_t>(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i)
    ap.dims[i] = dims[i];
  ap.byte_offset = offset * dtype_size(v.dtype);
  return ap;
}

AccessPattern raw_pattern(const BufferView& v, const RawPattern& raw) {
  if (raw.dims.empty() || raw.dims.size() > static_cast<std::size_t>(kMaxFreeDims))
    throw Error("a raw pattern of '" + v.name + "' needs 1 to " + std::to_string(kMaxFreeDims) +
                " free dims, not " + std::to_string(raw.dims.size()));
  AccessPattern ap;
  ap.space = v.space;
  ap.buffer = v.buffer;
  ap.dtype = v.dtype;
  ap.start_partition = raw.start_partition;
  ap.partitions = raw.partitions;
  ap.partition_stride = raw.partition_stride;
  ap.byte_offset = raw.byte_offset;
  ap.ndims = static_cast<std::uint8_t>(raw.dims.size());
  for (std::size_t i = 0; i < raw.dims.size(); ++i)
    ap.dims[i] = raw.dims[i];
  return ap;
}

std::string format_pattern(const Kernel& k, const AccessPattern& ap) {
  BufferView v;
  if (ap.space == MemSpace::hbm) {
    if (ap.buffer >= k.tensors.size())
      throw Error("access pattern names HBM tensor " + std::to_string(ap.buffer) + " of " +
                  std::to_string(k.tensors.size()));
    v = view_of(k.tensors[ap.buffer], ap.buffer);
  } else {
    if (ap.buffer >= k.allocations.size())
      throw Error("access pattern names allocation " + std::to_string(ap.buffer) + " of " +
                  std::to_string(k.allocations.size()));
    v = view_of(k.allocations[ap.buffer], ap.buffer);
    if (v.space != ap.space)
      throw Error("access pattern says " + std::string(mem_space_name(ap.space)) +
                  " but allocation '" + v.name + "' is in " + std::string(mem_space_name(v.space)));
  }
  if (ap.ndims >= 1 && ap.ndims <= kMaxFreeDims) {
    try {
      const BufferView seen = reinterpret(v, ap.dtype);
      if (auto text = SliceSearch(seen, ap).run()) return *text;
    } catch (const Error&) {
      // No view in this dtype: the raw form below says it all.
    }
  }
  if (ap.ndims < 1 || ap.ndims > kMaxFreeDims)
    throw Error("access pattern of '" + v.name + "' has " + std::to_string(ap.ndims) +
                " free dims (1.." + std::to_string(kMaxFreeDims) + ")");
  return raw_text(v, ap);
}

}  // namespace neuronsim::isa
