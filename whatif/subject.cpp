#include "whatif/subject.hpp"

#include "base/error.hpp"
#include "neff/neff.hpp"
#include "profile/directory.hpp"
#include "profile/host_trace.hpp"
#include "sequence/launch_sequence.hpp"
#include "sequence/sequence_runner.hpp"
#include "sequence/sequence_view.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::whatif {

Subject load_subject(const std::string& path, bool allow_outside_files) {
  Subject s;
  s.source = path;
  if (!sequence::looks_like_launch_sequence(path)) {
    s.kernels.push_back(std::make_shared<const isa::Kernel>(neff::read_file(path).kernel));
    s.names.push_back(path);
    return s;
  }
  const sequence::LaunchSequence seq = sequence::read_launch_sequence(path, allow_outside_files);
  sequence::SequenceKernels loaded = sequence::load_sequence_kernels(seq);
  s.sequence = true;
  for (std::size_t i = 0; i < seq.launches.size(); ++i) {
    s.kernels.push_back(std::make_shared<const isa::Kernel>(std::move(loaded.kernels[i])));
    s.names.push_back(seq.launches[i].name);
  }
  return s;
}

Subject profile_subject(const std::string& dir) {
  Subject s;
  s.source = dir;
  std::vector<std::string> launch_dirs = {dir};
  if (profile::is_sequence_profile(dir)) {
    const sequence::SequenceProfile seq = sequence::open_sequence_profile(dir);
    s.sequence = true;
    launch_dirs = seq.launch_dirs;
    for (const profile::HostTraceLaunch& l : seq.host.launches)
      s.names.push_back(l.name);
  }
  for (const std::string& d : launch_dirs) {
    profile::Profile p = profile::open_profile(d);
    if (s.target.empty()) s.target = traces::NtffReader(p.ntff_path).info().target;
    if (!s.sequence) s.names.push_back(dir);
    s.kernels.push_back(std::make_shared<const isa::Kernel>(std::move(p.neff.kernel)));
  }
  return s;
}

Subject kernels_subject(std::string source,
                        std::vector<std::shared_ptr<const isa::Kernel>> kernels) {
  if (kernels.empty()) throw Error(source + ": no kernel to analyse");
  Subject s;
  s.source = std::move(source);
  for (std::size_t i = 0; i < kernels.size(); ++i)
    s.names.push_back(kernels.size() == 1 ? s.source : s.source + "[" + std::to_string(i) + "]");
  s.kernels = std::move(kernels);
  return s;
}

}  // namespace neuronsim::whatif
