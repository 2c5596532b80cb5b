#pragma once
// NTFF: neuronsim's binary trace of one run on one NeuronCore (docs/ntff.md describes
// every byte). A header (magic, version, the NEFF's SHA-256, kernel name, target, engine
// clocks), then instruction, DMA and semaphore records in the order the run produced them,
// then a trailer (total time, record counts, checksum) so that a truncated file is
// detected. Records are a tag byte plus LEB128 varints, times delta-encoded against the
// previous record of the same kind (of the same engine, for instructions).
//
// The writer streams through a fixed buffer (memory does not grow with the run) to a
// temporary file renamed into place by close(). The reader streams too and checks every
// field: a corrupt file is a neuronsim::Error naming the file, the byte offset and the
// reason, never a crash or an allocation sized by the file.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "traces/ntff_codec.hpp"
#include "traces/output_file.hpp"
#include "traces/records.hpp"

namespace neuronsim::traces {

// Version 3 stores the clock of the profiler's cycle counter in the header (version 2 had the
// engine clocks only, and summaries counted cycles at the Tensor clock); version 2 stored
// every semaphore wait of an instruction and the signalling instruction of every semaphore
// update (version 1 kept the longest wait's semaphore and the signaller's engine or queue
// only); docs/ntff.md.
inline constexpr std::uint16_t kNtffVersion = 3;

struct RecordCounts {
  std::uint64_t instructions = 0, dmas = 0, semaphores = 0;
  bool operator==(const RecordCounts& o) const {
    return instructions == o.instructions && dmas == o.dmas && semaphores == o.semaphores;
  }
};

class NtffWriter {
 public:
  // Creates the temporary file and writes the header (info.total_ps is not used: the
  // total is known at close()). Throws neuronsim::Error for names too long to store.
  NtffWriter(const std::string& path, const TraceInfo& info);
  ~NtffWriter();  // abandons the file unless close() succeeded

  // Enum fields out of range are an Error (the file would not read back).
  void add(const InstructionRecord& r);
  void add(const DmaRecord& r);
  void add(const SemaphoreRecord& r);
  // Writes the trailer and renames the file into place.
  void close(std::uint64_t total_ps);
  void abandon();  // removes the temporary file; nothing appears at the path

  const RecordCounts& counts() const { return counts_; }
  std::uint64_t bytes_written() const { return out_.bytes_written(); }

 private:
  void emit();  // moves the record being encoded into the file

  OutputFile out_;
  ntff::Encoder enc_;
  ntff::DeltaState state_;
  RecordCounts counts_;
  std::uint64_t checksum_ = ntff::kFnvOffset;
  std::uint64_t latest_end_ps_ = 0;  // no record may end after the total time
  bool closed_ = false;
};

using Record = std::variant<InstructionRecord, DmaRecord, SemaphoreRecord>;

class NtffReader {
 public:
  explicit NtffReader(const std::string& path);  // opens the file and checks the header
  ~NtffReader();

  // The header's fields; total_ps is filled in once next() has read the trailer.
  const TraceInfo& info() const { return info_; }
  // The next record, or false once the trailer has been read and checked (counts,
  // checksum, nothing after it, no record ending after the total time).
  bool next(Record& out);
  const RecordCounts& counts() const { return counts_; }

 private:
  struct Source;
  std::unique_ptr<Source> src_;
  TraceInfo info_;
  ntff::DeltaState state_;
  RecordCounts counts_;
  std::uint64_t latest_end_ps_ = 0;
  bool done_ = false;

  void read_header();
  void read_trailer();
};

// The whole trace in memory (for views that need random access, such as the Perfetto
// export's flow arrows).
struct TraceData {
  TraceInfo info;
  std::vector<InstructionRecord> instructions;
  std::vector<DmaRecord> dmas;
  std::vector<SemaphoreRecord> semaphores;
};
TraceData read_ntff(const std::string& path);
void write_ntff(const std::string& path, const TraceData& trace);  // in the vectors' order

}  // namespace neuronsim::traces
