#pragma once
// NumPy .npz archives: a zip file of .npy members, one per array, as numpy.savez and
// numpy.savez_compressed write them (stored or deflated). A kernel's inputs can come in
// one archive whose member names are the input tensors' names (docs/npy.md), and
// `run --save-inputs X.npz` writes one back.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/npy.hpp"

namespace neuronsim::io {

struct NpzMember {
  std::string name;  // the member's name without ".npy": the array's keyword in np.savez
  NpyArray array;
};

// The most bytes a member may hold before it is read, given its name; throws
// neuronsim::Error to refuse the name (an archive member naming no tensor).
using NpzMemberLimit = std::function<std::uint64_t(const std::string& name)>;

// Reads and checks every member of the archive at `path`. Refused, naming the archive and
// the member: not a zip archive, a member that is not NAME.npy, a name given twice, a
// member larger than `limit(name)` (checked before its data is read, and again while it
// is read when the archive does not say its size), a damaged or truncated member, and
// anything read_npy refuses.
std::vector<NpzMember> read_npz(const std::string& path, const NpzMemberLimit& limit);

// An archive of .npy files (name without ".npy", the file's bytes), stored uncompressed
// with fixed timestamps, so that the same arrays give the same bytes; numpy.load reads it.
std::vector<std::uint8_t> encode_npz(
    const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& members);

}  // namespace neuronsim::io
