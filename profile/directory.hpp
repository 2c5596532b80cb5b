#pragma once
// Profile directories (reference section 7): P/neff_<N>.neff beside
// P/<N>_instid_0_vnc_0.ntff, N = neff::profile_id of the NEFF's header. Opening a profile
// finds the pair and refuses it unless the trace's NEFF hash equals the NEFF's own.
#include <cstdint>
#include <string>
#include <vector>

#include "neff/neff.hpp"
#include "traces/records.hpp"

namespace neuronsim::profile {

struct Profile {
  std::string neff_path;
  std::string ntff_path;
  neff::Neff neff;
};

std::string neff_file_name(std::uint64_t profile_id);                // "neff_<N>.neff"
std::string ntff_file_name(std::uint64_t profile_id, int core = 0);  // "<N>_instid_0_vnc_0.ntff"

// `path`: a profile directory, or a .ntff file (its NEFF is found beside it). Throws
// neuronsim::Error naming the files and the reason: no or several NEFFs, no trace, a
// trace whose hash differs from the NEFF's, a corrupt NEFF or trace header.
Profile open_profile(const std::string& path);

// Starts a profile: creates `dir` if needed, writes dir/neff_<N>.neff (all or nothing)
// and returns the path the trace must be written to (an NtffWriter given `info`).
// Refuses `info` whose neff_hash is not the hash in `neff_bytes`' header.
std::string prepare_profile(const std::string& dir, const std::vector<std::uint8_t>& neff_bytes,
                            const traces::TraceInfo& info);
// The same for a NEFF the caller has decoded already (`header`: neff_bytes' header), so
// that it is not decoded again.
std::string prepare_profile(const std::string& dir, const std::vector<std::uint8_t>& neff_bytes,
                            const neff::Header& header, const traces::TraceInfo& info);

}  // namespace neuronsim::profile
