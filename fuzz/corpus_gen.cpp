// Writes the binary seeds of the fuzz corpus with the project's own encoders (spool records, mesh frames), so
// the seeds are valid inputs the fuzzer mutates from. Run by fuzz/make_corpus.sh:
//   fuzz_corpus_gen <corpus dir>   -> <dir>/spool_record/, <dir>/spool_file/, <dir>/mesh_frame/
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "harness/fuzz_support.h"
#include "mesh/frame.h"
#include "spool/record_codec.h"

namespace fs = std::filesystem;
using namespace queen;

namespace {

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / ("seed-" + name), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string control(std::uint8_t c) { return std::string(1, static_cast<char>(c)); }

spool::SpoolEvent event(const std::string& queue, const std::string& partition, const std::string& txid,
                        const std::string& payload) {
  spool::SpoolEvent e(Tenant::default_tenant());
  e.queue = queue;
  e.partition = partition;
  e.transaction_id = txid;
  e.payload_json = payload;
  return e;
}

std::vector<spool::SpoolEvent> sample_events() {
  std::vector<spool::SpoolEvent> events;
  events.push_back(event("orders", "Default", "tx-1", "{\"amount\":12}"));
  events.push_back(event("orders", "acct-7", "tx-2", "[1,2,3]"));
  auto full = event("invoices", "acct-7", "inv-1", R"({"z": 1, "a": [true, null, "x"], "big": 1e300})");
  full.tenant = Tenant("acme");
  full.producer_sub = "svc-billing";
  full.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  full.deliver_at_ms = 1'900'000'000'123;
  full.encrypted = true;
  events.push_back(full);
  events.push_back(event("q", "p", "t", "null"));
  events.push_back(event("q", "p", "t2", "\"text \\u00e9 \\ud83d\\ude00\""));
  events.push_back(event("q\xc3\xa9", "p", "t3", "-0.5e3"));
  return events;
}

// The body of a record: what the encoder put between the length and the CRC.
std::string body_of(const std::string& record) {
  return record.substr(spool::kRecordLengthBytes, record.size() - spool::kRecordOverheadBytes);
}

void spool_seeds(const fs::path& root) {
  const auto events = sample_events();
  std::string all;
  std::string bodies;
  for (const auto& e : events) {
    const std::string record = spool::encode_record(e);
    all += record;
    bodies += (bodies.empty() ? "" : std::string(1, '\0')) + body_of(record);
  }
  const std::string one = spool::encode_record(events[2]);
  const std::string torn = all + one.substr(0, 9);
  // Bodies in another key order / older layouts: the decoder's full-parse path.
  const std::vector<std::string> other_bodies = {
      R"({"payload":{"a":1},"queue":"q","partition":"p","transactionId":"t","encrypted":false})",
      R"({"queue":"q","partition":"p","transactionId":"t","encrypted":false,"payload":1,"traceId":null})",
      R"({"queue":"q","partition":"p","transactionId":"t","tenant":null,"producerSub":"s","encrypted":true,"payload":[]})",
      R"({"queue":"q","partition":"p","transactionId":"t","deliverAt":-1,"encrypted":false,"payload":{}})",
      R"({"queue":"q","partition":"p","transactionId":"t","encrypted":false})",
      R"([1,2])",
  };

  const fs::path rec = root / "spool_record";
  write(rec, "file-one", control(0) + one);
  write(rec, "file-all", control(0) + all);
  write(rec, "file-torn", control(0) + torn);
  write(rec, "file-bad-crc", control(0) + all.substr(0, all.size() - 1) + "x");
  write(rec, "file-bad-length", control(0) + std::string("\0\0\0\0", 4) + all);
  write(rec, "sealed-all", control(1) + bodies);
  for (std::size_t i = 0; i < other_bodies.size(); ++i) {
    write(rec, "sealed-other-" + std::to_string(i), control(1) + other_bodies[i]);
    write(rec, "body-other-" + std::to_string(i), control(2) + other_bodies[i]);
  }
  for (std::size_t i = 0; i < events.size(); ++i)
    write(rec, "body-" + std::to_string(i), control(2) + body_of(spool::encode_record(events[i])));

  // spool_file control bits: 1 = .tmp, 2 = boot and drain, 4 = sealed bodies, bits 3-5 = max batch - 1.
  const fs::path file = root / "spool_file";
  write(file, "buf-scan", control(0) + all);
  write(file, "buf-drain", control(2 | (1 << 3)) + all);
  write(file, "buf-torn-drain", control(2) + torn);
  write(file, "tmp-torn-drain", control(1 | 2 | (2 << 3)) + torn);
  write(file, "tmp-garbage-drain", control(1 | 2) + one.substr(0, 5));
  write(file, "buf-empty-drain", control(2));
  write(file, "sealed-drain", control(2 | 4 | (7 << 3)) + bodies);
  write(file, "sealed-tmp-drain", control(1 | 2 | 4) + bodies + std::string(1, '\0') + other_bodies[0]);
}

mesh::Frame envelope(mesh::Frame f, std::uint64_t sequence) {
  f.sender_id = "queen-a";
  f.boot_id = 1'700'000'000'123ULL;
  f.sequence = sequence;
  f.timestamp_ms = 1'700'000'000'000LL;
  return f;
}

std::string bytes_of(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }

void mesh_seeds(const fs::path& root) {
  using namespace mesh;
  const std::vector<std::pair<std::string, Frame>> frames = {
      {"heartbeat", make_heartbeat()},
      {"pop-wake", make_pop_wake("orders", std::string("customer-7"))},
      {"pop-wake-any", make_pop_wake("orders")},
      {"hot-mark", make_hot_mark("orders", "Default")},
      {"flip-push", make_maintenance_flip(MaintenanceFlag::Push, true)},
      {"flip-pop", make_maintenance_flip(MaintenanceFlag::Pop, false)},
      {"config", make_config_invalidation("billing.events")},
  };
  const fs::path dir = root / "mesh_frame";
  std::string stream;
  std::uint64_t sequence = 1;
  for (const auto& [name, frame] : frames) {
    const auto encoded = encode_frame(envelope(frame, sequence++), fuzz::kMeshSecret);
    if (!encoded) throw std::runtime_error("cannot encode seed frame " + name);
    const std::string bytes = bytes_of(*encoded);
    // Without the length prefix and the MAC: what the sealed and stream modes take.
    const std::string inner = bytes.substr(4, bytes.size() - 4 - kMacBytes);
    write(dir, "raw-" + name, control(0) + bytes);
    write(dir, "sealed-" + name, control(1) + inner);
    stream += (stream.empty() ? "" : "|||") + inner;
  }
  const auto other_secret = encode_frame(envelope(make_heartbeat(), 1), "another-secret");
  write(dir, "raw-other-secret", control(0) + bytes_of(*other_secret));
  write(dir, "stream-all-1", control(2) + control(0) + stream);
  write(dir, "stream-all-7", control(2) + control(6) + stream);
  write(dir, "stream-all-256", control(2) + control(255) + stream);
  // The same frame twice: the second is a replay.
  const auto hb = bytes_of(*encode_frame(envelope(make_heartbeat(), 9), fuzz::kMeshSecret));
  const std::string hb_inner = hb.substr(4, hb.size() - 4 - kMacBytes);
  write(dir, "stream-replay", control(2) + control(31) + hb_inner + "|||" + hb_inner);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_corpus_gen <corpus dir>\n";
    return 2;
  }
  const fs::path root = argv[1];
  spool_seeds(root);
  mesh_seeds(root);
  return 0;
}
