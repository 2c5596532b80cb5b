#pragma once
// What crosses neuronsim's TLM-2.0 sockets (docs/embedding.md).
//
// HBM (NeuronCore::hbm, an initiator socket; the bundled target is neuronsim::Hbm):
//   b_transport  one per DMA engine part that reads or writes HBM: the command is READ
//                (HBM source) or WRITE (HBM destination), the address and length are the
//                part's first HBM byte and its byte count; the data pointer points at
//                the part's bytes (IEEE 1666-2011 14.17: a write carries them, a read
//                receives them), streaming width below the length when the part repeats
//                one row. The target may wait() inside b_transport
//                (the bundled model does, to share bandwidth) or annotate a delay, or both;
//                the DMA engine waits out the returned delay before the part completes.
//                A DmaRateExtension carries the part's own rate limit.
//   get_direct_mem_ptr  where the data is: the bytes of a transfer are copied through the
//                DMI pointer when the transfer completes (with casts and accumulation, as
//                docs/numerics.md says). A target without DMI is served by transport_dbg
//                copies at the start and end of each launch instead.
//   transport_dbg  loading and inspecting without time: constants and inputs at launch
//                start, outputs at the end, a kernel descriptor and its NEFF.
//
// Registers (NeuronCore::regs, a target socket): the map below; 4- or 8-byte
// little-endian accesses, naturally aligned (a 4-byte access at +4 is a register's upper
// half), reads of any length in the error text; they take no time of their own, and an
// access with a delay (a temporally decoupled host) first waits it out, so it happens at
// the host's local time.
#include <cstdint>

#include <tlm>

namespace neuronsim {

// The rate limit of one DMA part: its DMA engine's bandwidth times the efficiency of the
// transfer's row size. A target that honours it sets `applied`; otherwise the DMA engine
// makes the part last at least bytes / cap_bytes_per_ns itself.
struct DmaRateExtension : tlm::tlm_extension<DmaRateExtension> {
  double cap_bytes_per_ns = 0;
  std::uint32_t dma_engine = 0;
  bool applied = false;
  // The issuing core's target name and NeuronCore generation (its TargetConfig's), valid
  // during the call: how a memory model can tell which core's figures a part expects.
  const char* initiator_target = nullptr;
  const char* initiator_generation = nullptr;
  tlm::tlm_extension_base* clone() const override { return new DmaRateExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const DmaRateExtension&>(other);
  }
};

// The register block of a NeuronCore: 64-bit registers at these byte offsets.
namespace regs {
inline constexpr std::uint64_t kId = 0x00;          // RO: kIdValue
inline constexpr std::uint64_t kDescriptor = 0x08;  // RW: HBM address of a kernel descriptor
inline constexpr std::uint64_t kDoorbell = 0x10;    // WO: write 1 to launch the descriptor
inline constexpr std::uint64_t kStatus = 0x18;      // RO: kStatus* bits, launch counts
inline constexpr std::uint64_t kCycles = 0x20;      // RO: cycles of the last finished launch
inline constexpr std::uint64_t kIntStatus = 0x28;   // RW1C: kInt* bits
inline constexpr std::uint64_t kIntEnable = 0x30;   // RW: kInt* bits that raise irq
inline constexpr std::uint64_t kErrorCode = 0x38;   // RO: kError* of the last failed launch
// RO, byte-addressed: why the last failed doorbell launch failed, as text (the message a
// C++ caller gets in LaunchResult::error), NUL-padded, at most kErrorTextBytes - 1 bytes.
inline constexpr std::uint64_t kErrorText = 0x100;
inline constexpr std::uint64_t kErrorTextBytes = 0x100;
inline constexpr std::uint64_t kSize = 0x200;  // bytes of the register block

inline constexpr std::uint64_t kIdValue = 0x4e53494d'00010000;  // "NSIM", version 1.0
// kStatus: bit 0 busy (a launch is queued or running); bits 32..63 launches finished.
inline constexpr std::uint64_t kStatusBusy = 1u << 0;
inline constexpr unsigned kStatusFinishedShift = 32;
// kIntStatus / kIntEnable.
inline constexpr std::uint64_t kIntDone = 1u << 0;   // a doorbell launch finished
inline constexpr std::uint64_t kIntError = 1u << 1;  // ... and failed (kErrorCode says why)
// kErrorCode.
inline constexpr std::uint64_t kErrorNone = 0;
inline constexpr std::uint64_t kErrorDescriptor = 1;  // unreadable or malformed descriptor
inline constexpr std::uint64_t kErrorNeff = 2;        // the NEFF does not decode or validate
inline constexpr std::uint64_t kErrorRun = 3;         // deadlock or failure while running
}  // namespace regs

// A kernel descriptor in HBM (little-endian), written by the host before the doorbell:
//   u32 magic = descriptor::kMagic, u32 version = descriptor::kVersion,
//   u64 NEFF address, u64 NEFF bytes,
//   u32 tensor count (must equal the NEFF's), u32 zero,
//   u64 HBM address of each tensor, in the NEFF's tensor order.
// The core reads it and the NEFF with transport_dbg, writes the NEFF's constants to their
// addresses and runs the kernel on the tensors where the host put them.
namespace descriptor {
inline constexpr std::uint32_t kMagic = 0x4b44534e;  // "NSDK"
inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::uint64_t kHeaderBytes = 32;
inline constexpr std::uint32_t kMaxTensors = 4096;
}  // namespace descriptor

}  // namespace neuronsim
