#include "semantics/ops.hpp"

#include <cmath>
#include <string>

namespace neuronsim::isa::sem {

std::vector<float> scalar_column(const Site& s, const ScalarArg& arg, std::uint32_t partitions,
                                 std::string_view field) {
  if (const float* imm = std::get_if<float>(&arg)) return std::vector<float>(partitions, *imm);
  const Operand col(s, std::get<AccessPattern>(arg), field);
  require_column(s, col, partitions);
  std::vector<float> v(partitions);
  for (std::uint32_t p = 0; p < partitions; ++p)
    v[p] = col.first(p);
  return v;
}

std::vector<std::int64_t> scalar_column_int(const Site& s, const ScalarArg& arg,
                                            std::uint32_t partitions, std::string_view field) {
  if (const float* imm = std::get_if<float>(&arg)) {
    // |imm| < 2^31 keeps the conversion defined; larger values are no int32 operand.
    if (!(std::fabs(*imm) < 2147483648.0f) || std::nearbyint(*imm) != *imm)
      s.fail(field, "is " + std::to_string(*imm) +
                        " but an integer (bitwise) instruction needs a whole number");
    return std::vector<std::int64_t>(partitions, static_cast<std::int64_t>(*imm));
  }
  const Operand col(s, std::get<AccessPattern>(arg), field);
  require_column(s, col, partitions);
  if (!is_integer(col.dtype()))
    s.fail(field, "is " + std::string(dtype_name(col.dtype())) +
                      " but an integer (bitwise) instruction needs an integer dtype");
  std::vector<std::int64_t> v(partitions);
  for (std::uint32_t p = 0; p < partitions; ++p)
    v[p] = col.first_int(p);
  return v;
}

void require_integer(const Site& s, const Operand& op, AluOp why) {
  if (!is_integer(op.dtype()))
    s.fail(op.field(), "is " + std::string(dtype_name(op.dtype())) + " but " +
                           std::string(alu_op_name(why)) + " needs integer dtypes");
}

std::vector<std::int64_t> affine_free_part(const AccessPattern& ap,
                                           const std::array<std::int32_t, kMaxFreeDims>& steps) {
  std::vector<std::int64_t> out{0};
  // Row-major: each dim, outermost first, splits every entry built so far into `size`
  // entries, so the innermost index varies fastest.
  for (int k = 0; k < ap.ndims; ++k) {
    std::vector<std::int64_t> next;
    next.reserve(out.size() * ap.dims[k].size);
    for (std::int64_t base : out)
      for (std::uint32_t i = 0; i < ap.dims[k].size; ++i)
        next.push_back(base + static_cast<std::int64_t>(i) * steps[k]);
    out.swap(next);
  }
  return out;
}

}  // namespace neuronsim::isa::sem
