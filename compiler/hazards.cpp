#include "compiler/hazards.hpp"

#include <algorithm>

namespace neuronsim::compiler {

std::vector<Done> Slot::before_write() const {
  std::vector<Done> all = writers_;
  all.insert(all.end(), readers_.begin(), readers_.end());
  return all;
}

void Slot::wrote(const Done& d) {
  // Writes with no read between them all stay pending (e.g. the two halves of an output
  // tile); the first write after a read starts over.
  if (!readers_.empty()) {
    readers_.clear();
    writers_.clear();
  }
  writers_.push_back(d);
}

void Slot::read(const Done& d) {
  readers_.push_back(d);
}

Hazards::Hazards(isa::Builder& b, std::function<std::string(const std::string&)> name)
    : b_(b), name_(std::move(name)) {}

void Hazards::add_waits(isa::Instruction& ins, int engine, const std::vector<Access>& accesses) {
  // The highest value per semaphore: counters only grow, so it implies the others.
  std::map<std::uint16_t, std::uint32_t> want;
  for (const Access& a : accesses)
    for (const Done& d : a.write ? a.slot->before_write() : a.slot->writers()) {
      if (engine >= 0 && d.engine == engine) continue;  // in order on one engine
      auto& v = want[d.sem];
      v = std::max(v, d.value);
    }
  for (const auto& [sem, value] : want)
    ins.waits.push_back(isa::SemWait{sem, value});
}

Done Hazards::signal(isa::Instruction& ins, isa::Sem sem, std::uint32_t& count, int engine,
                     const std::vector<Access>& accesses) {
  ins.signals.push_back(isa::SemSignal{sem.index, isa::SemUpdate::increment, 1});
  const Done done{sem.index, ++count, engine};
  for (const Access& a : accesses) {
    if (a.write)
      a.slot->wrote(done);
    else
      a.slot->read(done);
  }
  return done;
}

Done Hazards::compute(isa::Instruction& ins, isa::Engine e, const std::vector<Access>& accesses) {
  const int engine = static_cast<int>(e);
  add_waits(ins, engine, accesses);
  auto it = engines_.find(engine);
  if (it == engines_.end()) {
    const isa::Sem sem = b_.semaphore(name_(std::string(isa::engine_name(e)) + "_done"));
    it = engines_.emplace(engine, std::make_pair(sem, 0u)).first;
  }
  return signal(ins, it->second.first, it->second.second, engine, accesses);
}

isa::Queue Hazards::queue(const std::string& name, std::uint8_t first_engine,
                          std::uint8_t engines) {
  const std::string free = name_(name);
  const isa::Queue q = b_.queue(free, first_engine, engines);
  queue_names_[q.index] = free;
  return q;
}

Done Hazards::dma(isa::Instruction& ins, isa::Queue queue, std::uint32_t start,
                  std::uint32_t partitions, const std::vector<Access>& accesses) {
  add_waits(ins, -1, accesses);
  const auto key = std::make_tuple(queue.index, start, partitions);
  auto it = transfers_.find(key);
  if (it == transfers_.end()) {
    std::string base = queue_names_.at(queue.index) + "_" + std::to_string(partitions) + "p";
    if (start) base += "_at" + std::to_string(start);
    const isa::Sem sem = b_.semaphore(name_(base));
    it = transfers_.emplace(key, std::make_pair(sem, 0u)).first;
  }
  return signal(ins, it->second.first, it->second.second, -1, accesses);
}

}  // namespace neuronsim::compiler
