// Fuzzes the spool file reader and the recovery/drain path over a crafted file (src/spool/spool_file.*,
// spool_directory.*, spool_drain.*): the fuzz bytes become one spool file in a private temporary directory,
// then
//   1. scan_spool_file + SpoolFileReader must agree with the pure decoder (decode_records) record for record;
//   2. optionally the boot sequence runs over the directory: inventory, recover_at_startup (finalizing a .tmp,
//      cutting its torn tail), then drain cycles until the file is replayed or quarantined. A fake store takes
//      every batch; it must receive exactly the decodable events, in batches no larger than the configured
//      batch size in which each group's events are contiguous, and the ledger must end with nothing pending.
//
// Input: one control byte, then the file. Control bits:
//   bit 0  the file is a leftover active file (.tmp) rather than a finalized one (.buf)
//   bit 1  run the boot/drain sequence (step 2), not only the reader (step 1)
//   bit 2  the data is NUL-separated record bodies, sealed with correct lengths and CRCs (see spool_seal.h)
//   bits 3-5  FILE_BUFFER_MAX_BATCH - 1 (1..8)
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <map>

#include "fuzz_support.h"
#include "spool/file_names.h"
#include "spool/record_codec.h"
#include "spool/spool_directory.h"
#include "spool/spool_drain.h"
#include "spool/spool_file.h"
#include "spool/spool_ledger.h"
#include "spool_seal.h"
#include "util/clock.h"

namespace fs = std::filesystem;
using namespace queen::spool;
using queen::fuzz::Cursor;

namespace {

// One directory per process, on tmpfs when there is one (fast, and nothing is left on a real disk).
// Removed at exit (never destroyed before that: the atexit handler still needs it).
const fs::path& work_dir() {
  static const fs::path* const dir = [] {
    fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "queen-fuzz-spool-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    auto* path = new fs::path(pattern);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(work_dir(), ec);
    });
    return path;
  }();
  return *dir;
}

void reset_dir(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(failed_directory(dir));
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) std::abort();
}

class RecordingStore final : public ReplayStore {
 public:
  explicit RecordingStore(std::size_t max_batch) : max_batch_(max_batch) {}
  ReplayOutcome replay(const std::vector<SpoolEvent>& batch) override {
    FUZZ_CHECK(!batch.empty() && batch.size() <= max_batch_, "batch of %zu events (max %zu)", batch.size(),
               max_batch_);
    std::vector<ReplayGroupKey> segments;  // groups in the order their runs appear in the batch
    for (const auto& e : batch) {
      const ReplayGroupKey key = ReplayGroupKey::of(e);
      if (segments.empty() || !(segments.back() == key)) {
        FUZZ_CHECK(std::find(segments.begin(), segments.end(), key) == segments.end(),
                   "a group split inside a batch");
        segments.push_back(key);
      }
      events.push_back(e);
    }
    return ReplayOutcome::ok();
  }
  std::vector<SpoolEvent> events;

 private:
  std::size_t max_batch_;
};

// Events of each (tenant, queue, partition) in order: what the drain must preserve.
std::map<ReplayGroupKey, std::vector<SpoolEvent>> by_group(const std::vector<SpoolEvent>& events) {
  std::map<ReplayGroupKey, std::vector<SpoolEvent>> groups;
  for (const auto& e : events) groups[ReplayGroupKey::of(e)].push_back(e);
  return groups;
}

void check_reader(const fs::path& path, std::string_view bytes, const DecodeResult& expected) {
  const FileScan scan = scan_spool_file(path);
  FUZZ_CHECK(scan.file_bytes == bytes.size(), "file_bytes %llu of %zu", (unsigned long long)scan.file_bytes,
             bytes.size());
  FUZZ_CHECK(scan.records.size() == expected.events.size(), "scan found %zu records, the decoder %zu",
             scan.records.size(), expected.events.size());
  FUZZ_CHECK(scan.good_bytes == expected.good_bytes, "scan good_bytes %llu, decoder %zu",
             (unsigned long long)scan.good_bytes, expected.good_bytes);
  FUZZ_CHECK(scan.torn_tail == expected.torn_tail, "scan and decoder disagree on the torn tail");
  SpoolFileReader reader(path);
  for (std::size_t i = 0; i < scan.records.size(); ++i) {
    const SpoolEvent event = reader.read(scan.records[i]);
    FUZZ_CHECK(event == expected.events[i], "record %zu reads differently from the decoder", i);
    FUZZ_CHECK(scan.records[i].group == ReplayGroupKey::of(event), "record %zu has the wrong group", i);
  }
}

void check_boot_and_drain(const fs::path& dir, const fs::path& path, std::string_view bytes, bool active,
                          std::size_t max_batch, const DecodeResult& expected) {
  SpoolLedger ledger;
  inventory_spool_directory(dir, ledger);
  FUZZ_CHECK(ledger.pending_events() == expected.events.size(), "inventory counted %llu events, expected %zu",
             (unsigned long long)ledger.pending_events(), expected.events.size());

  RecordingStore store(max_batch);
  SpoolDrainOptions options;
  options.max_batch = max_batch;
  // The real clock: recovery and drain cycles here are bounded by attempts, not by time.
  SpoolDrain drain(dir, options, store, ledger, nullptr, queen::util::real_clock());
  const RecoverySummary summary = drain.recover_at_startup();
  if (active) {
    FUZZ_CHECK(!fs::exists(path), "the leftover .tmp is still there after recovery");
    FUZZ_CHECK(summary.stop == RecoverySummary::Stop::Completed, "recovery of a cut .tmp did not complete: %s",
               summary.error.c_str());
  }
  // A damaged .buf blocks until quarantined after max_permanent_attempts; drain cycles get it there.
  for (unsigned i = 0; i < options.max_permanent_attempts + 1 && !list_spool_files(dir, ".buf").empty(); ++i)
    drain.run_cycle();
  FUZZ_CHECK(list_spool_files(dir, ".buf").empty() && list_spool_files(dir, ".tmp").empty(),
             "a spool file is left after recovery and %u drain cycles", options.max_permanent_attempts + 1);

  FUZZ_CHECK(store.events.size() == expected.events.size(), "the store got %zu events, the file holds %zu",
             store.events.size(), expected.events.size());
  FUZZ_CHECK(by_group(store.events) == by_group(expected.events), "replay changed the order within a partition");
  FUZZ_CHECK(ledger.pending_events() == 0, "ledger still counts %llu pending events",
             (unsigned long long)ledger.pending_events());
  const bool quarantined = !active && expected.torn_tail;
  FUZZ_CHECK(fs::is_empty(failed_directory(dir)) != quarantined, "quarantine %s expected",
             quarantined ? "was" : "was not");
  (void)bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  queen::fuzz::quiet_logs();
  Cursor in(data, size);
  const std::uint8_t control = in.byte();
  const bool active = control & 1;
  const bool boot = control & 2;
  const bool sealed = control & 4;
  const std::size_t max_batch = 1 + ((control >> 3) & 7);
  const std::string bytes = sealed ? queen::fuzz::seal_spool_bodies(in.rest()) : std::string(in.rest());

  const fs::path& dir = work_dir();
  reset_dir(dir);
  const SpoolFileId id{1700000000000ull, 1};
  const fs::path path = dir / (active ? active_file_name(id) : finalized_file_name(id));
  write_file(path, bytes);

  const DecodeResult expected = decode_records(bytes);
  check_reader(path, bytes, expected);
  if (boot) check_boot_and_drain(dir, path, bytes, active, max_batch, expected);
  return 0;
}
