#include "mesh/mesh_node.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "mesh/backoff.h"
#include "mesh/peer_sources.h"
#include "mesh/replay_guard.h"
#include "mesh/socket_io.h"
#include "util/background_worker.h"
#include "util/assert.h"

namespace queen::mesh {
namespace {

using Bytes = std::vector<std::uint8_t>;
using SharedBytes = std::shared_ptr<const Bytes>;

constexpr int kListenBacklog = 16;
// Upper bound on one poll() sleep of the receive loop, so idle connections are reaped on time.
constexpr std::chrono::milliseconds kReceiveTick{250};
// Connections accepted per loop turn: a connect flood cannot starve frame processing.
constexpr int kMaxAcceptsPerTurn = 32;
constexpr std::chrono::seconds kRejectLogInterval{1};

// Unix ms, but strictly larger than any boot id handed out before in this process: two nodes created within the
// same millisecond (tests, a restart of the mesh inside one process) still look like distinct incarnations.
std::uint64_t next_boot_id(const util::Clock& clock) {
  static std::atomic<std::uint64_t> last{0};
  const auto now = static_cast<std::uint64_t>(clock.system_now_ms());
  std::uint64_t previous = last.load();
  std::uint64_t chosen = 0;
  do {
    chosen = std::max(now, previous + 1);
  } while (!last.compare_exchange_weak(previous, chosen));
  return chosen;
}

RejectReason reject_reason_for(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::Oversized: return RejectReason::Oversized;
    case DecodeStatus::BadVersion: return RejectReason::BadVersion;
    case DecodeStatus::BadMac: return RejectReason::BadMac;
    case DecodeStatus::UnknownType: return RejectReason::UnknownType;
    case DecodeStatus::Ok:
    case DecodeStatus::NeedMoreBytes:
    case DecodeStatus::Malformed: break;
  }
  return RejectReason::Malformed;
}


// Outbound side of one configured peer. The queue, its byte count, `connected` and `last_error` are guarded by
// `mu`; counters are atomics so stats() never waits on a sender. The connection and the backoff state belong to
// the sender (its worker's rounds), and to stop() once the sender has been joined.
struct PeerLink {
  explicit PeerLink(PeerAddress a)
      : address(std::move(a)),
        address_text(address.to_string()),
        rng(std::random_device{}() ^ std::hash<std::string>{}(address_text)) {}

  const PeerAddress address;
  const std::string address_text;

  std::mutex mu;
  std::deque<SharedBytes> queue;
  std::size_t queued_bytes = 0;
  bool connected = false;
  int socket_fd = -1;  // the live connection, so stop() can shut it down under a blocked send
  std::string last_error;

  std::atomic<std::uint64_t> frames_sent{0};
  std::atomic<std::uint64_t> dropped_peer_down{0};
  std::atomic<std::uint64_t> dropped_queue_full{0};
  std::atomic<std::uint64_t> connects{0};
  std::atomic<std::uint64_t> connect_failures{0};

  // Sender state: touched by the sender's rounds only.
  detail::FileDescriptor connection;
  util::Clock::time_point connected_at{};
  std::mt19937_64 rng;
  unsigned attempt = 0;
  bool in_outage = false;  // log once per outage, not once per retry

  std::unique_ptr<util::BackgroundWorker> sender;  // from start(); woken when a frame is queued
};

struct InboundConnection {
  detail::FileDescriptor fd;
  Bytes buffer;  // never grows past kMaxFrameBytes: complete frames are consumed as soon as they arrive
  util::Clock::time_point last_bytes_at;
};

struct SenderRecord {
  util::Clock::time_point last_frame_at;
  std::uint64_t frames = 0;
};

}  // namespace

const char* to_string(RejectReason reason) noexcept {
  switch (reason) {
    case RejectReason::Truncated: return "truncated";
    case RejectReason::Oversized: return "oversized";
    case RejectReason::BadVersion: return "bad_version";
    case RejectReason::UnknownType: return "unknown_type";
    case RejectReason::Malformed: return "malformed";
    case RejectReason::BadMac: return "bad_mac";
    case RejectReason::Replayed: return "replayed";
    case RejectReason::Stale: return "stale";
    case RejectReason::OwnFrame: return "own_frame";
    case RejectReason::TooManySenders: return "too_many_senders";
    case RejectReason::UnknownPeer: return "unknown_peer";
    case RejectReason::Count_: break;
  }
  return "unknown";
}

std::uint64_t MeshStats::rejected_total() const {
  std::uint64_t total = 0;
  for (auto n : rejected) total += n;
  return total;
}

namespace {

std::vector<std::string> peer_hosts(const std::vector<PeerAddress>& peers) {
  std::vector<std::string> hosts;
  hosts.reserve(peers.size());
  for (const auto& peer : peers) hosts.push_back(peer.host);
  return hosts;
}

std::vector<std::string> resolve_peer_host(const std::string& host) {
  std::string error;
  std::vector<std::string> addresses = detail::resolve_numeric_hosts(host, error);
  if (addresses.empty()) spdlog::debug("mesh: peer host {} gives no address to accept from: {}", host, error);
  return addresses;
}

}  // namespace

struct MeshNode::Impl {
  Impl(MeshOptions o, const util::Clock& c)
      : options(std::move(o)),
        clock(c),
        boot_id(next_boot_id(c)),
        replay_guard(ReplayGuardOptions{options.max_clock_skew.count(), options.max_tracked_senders}),
        peer_sources(peer_hosts(options.peers), resolve_peer_host) {}

  const MeshOptions options;
  const util::Clock& clock;  // heartbeats, reconnects, idle reaping, frame stamps
  const std::uint64_t boot_id;
  FrameHandler handler;

  // Atomics: broadcast(), enabled() and stats() may run on any thread.
  std::atomic<bool> started{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> stopping{false};
  // Set once start() has built every link: broadcast() may run on any thread, even while start() runs.
  std::atomic<bool> links_ready{false};
  detail::FileDescriptor listener;
  detail::FileDescriptor wake;
  std::uint16_t bound_port = 0;
  std::vector<std::unique_ptr<PeerLink>> links;
  std::thread receive_thread;

  // Taken while a frame gets its sequence number and is offered to every queue, so each queue holds frames in
  // sequence order even when broadcast() is called from several threads (the receiver rejects a lower sequence).
  std::mutex broadcast_mu;
  std::uint64_t last_sequence = 0;

  std::atomic<std::uint64_t> frames_broadcast{0};
  std::atomic<std::uint64_t> frames_unencodable{0};
  std::atomic<std::uint64_t> frames_received{0};
  std::array<std::atomic<std::uint64_t>, kRejectReasonCount> rejected{};
  std::atomic<std::uint64_t> inbound_open{0};
  std::atomic<std::uint64_t> inbound_refused{0};
  std::atomic<std::uint64_t> inbound_idle_closed{0};
  std::atomic<std::uint64_t> handler_errors{0};

  ReplayGuard replay_guard;  // receive thread only
  PeerSources peer_sources;  // used by the receive thread only
  util::Clock::time_point last_reject_log_at{};  // receive thread only
  std::uint64_t rejections_not_logged = 0;       // receive thread only
  mutable std::mutex senders_mu;
  std::unordered_map<std::string, SenderRecord> senders;

  void count(RejectReason reason) { ++rejected[static_cast<std::size_t>(reason)]; }

  // ---- outbound ---------------------------------------------------------------------------------------------

  void offer(PeerLink& link, const SharedBytes& frame) {
    std::lock_guard<std::mutex> lock(link.mu);
    if (!link.connected) {
      ++link.dropped_peer_down;
      return;
    }
    if (link.queue.size() >= options.send_queue_max_frames ||
        link.queued_bytes + frame->size() > options.send_queue_max_bytes) {
      ++link.dropped_queue_full;
      return;
    }
    link.queue.push_back(frame);
    link.queued_bytes += frame->size();
    link.sender->wake();
  }

  // Takes every queued frame (one batch, at most the queue bound) as one contiguous buffer, so a burst of hints
  // costs one send() per wake-up rather than one per frame.
  void take_batch(PeerLink& link, Bytes& batch, std::size_t& frames_in_batch) {
    std::lock_guard<std::mutex> lock(link.mu);
    batch.clear();
    batch.reserve(link.queued_bytes);
    frames_in_batch = link.queue.size();
    for (const auto& frame : link.queue) batch.insert(batch.end(), frame->begin(), frame->end());
    link.queue.clear();
    link.queued_bytes = 0;
  }

  void set_connected(PeerLink& link, int fd) {
    std::lock_guard<std::mutex> lock(link.mu);
    link.connected = true;
    link.socket_fd = fd;
  }

  // Frames still queued for a lost connection are dropped: they are hints, and late hints are worthless.
  void set_disconnected(PeerLink& link, const std::string& why) {
    std::lock_guard<std::mutex> lock(link.mu);
    link.connected = false;
    link.socket_fd = -1;
    link.dropped_peer_down += link.queue.size();
    link.queue.clear();
    link.queued_bytes = 0;
    if (!why.empty()) link.last_error = why;
  }

  // One round of a peer's sender: connect when there is no connection, otherwise send what is queued. The next
  // round is due at the reconnect backoff, or after a heartbeat interval (a queued frame wakes it sooner).
  util::Clock::time_point sender_round(PeerLink& link) {
    if (stopping) return util::Clock::time_point::max();  // stop() is about to end the sender
    if (!link.connection.valid()) return connect(link);
    return send_queued(link);
  }

  util::Clock::time_point connect(PeerLink& link) {
    std::string error;
    link.connection = detail::connect_tcp(link.address.host, link.address.port, options.connect_timeout,
                                          options.write_timeout, error);
    if (!link.connection.valid()) {
      ++link.connect_failures;
      {
        std::lock_guard<std::mutex> lock(link.mu);
        link.last_error = error;
      }
      if (!link.in_outage) {
        spdlog::warn("mesh: peer {} unreachable: {} (retrying with backoff)", link.address_text, error);
      }
      link.in_outage = true;
      return clock.now() + next_reconnect_delay(link);
    }
    ++link.connects;
    link.in_outage = false;
    spdlog::info("mesh: connected to peer {}", link.address_text);
    set_connected(link, link.connection.get());
    link.connected_at = clock.now();
    return clock.now() + options.heartbeat_interval;
  }

  util::Clock::time_point send_queued(PeerLink& link) {
    Bytes batch;
    std::size_t frames_in_batch = 0;
    take_batch(link, batch, frames_in_batch);
    const int fd = link.connection.get();
    if (!batch.empty() && !detail::send_all(fd, batch.data(), batch.size())) {
      const int send_errno = errno;
      link.dropped_peer_down += frames_in_batch;
      if (send_errno == EAGAIN || send_errno == EWOULDBLOCK) {
        return lose_connection(link, "write timed out: peer is not reading");
      }
      return lose_connection(link, std::string("write failed: ") + std::strerror(send_errno));
    }
    link.frames_sent += frames_in_batch;
    if (detail::peer_has_closed(fd)) return lose_connection(link, "connection closed by peer");
    return clock.now() + options.heartbeat_interval;
  }

  util::Clock::time_point lose_connection(PeerLink& link, const std::string& why) {
    set_disconnected(link, why);
    link.connection.reset();
    if (stopping) return util::Clock::time_point::max();  // stop() is about to end the sender
    spdlog::warn("mesh: lost peer {}: {}", link.address_text, why);
    link.in_outage = true;
    // A connection that held for a while resets the backoff; one that dies at once (a peer that accepts and
    // closes) keeps growing it, so we never spin on connect/close.
    if (clock.now() - link.connected_at >= options.reconnect_backoff_max) link.attempt = 0;
    return clock.now() + next_reconnect_delay(link);
  }

  std::chrono::milliseconds next_reconnect_delay(PeerLink& link) {
    std::uniform_real_distribution<double> jitter(0.0, 1.0);
    return reconnect_delay(link.attempt++, options.reconnect_backoff_min, options.reconnect_backoff_max,
                           jitter(link.rng));
  }

  // After the sender has been joined: frames still queued are discarded with the connection.
  void close_link(PeerLink& link) {
    if (!link.connection.valid()) return;
    set_disconnected(link, "");
    link.connection.reset();
  }

  // ---- inbound ----------------------------------------------------------------------------------------------

  void remember_sender(const std::string& sender_id) {
    std::lock_guard<std::mutex> lock(senders_mu);
    auto it = senders.find(sender_id);
    if (it == senders.end()) {
      if (senders.size() >= options.max_tracked_senders) {
        auto oldest = std::min_element(senders.begin(), senders.end(), [](const auto& a, const auto& b) {
          return a.second.last_frame_at < b.second.last_frame_at;
        });
        senders.erase(oldest);
      }
      it = senders.emplace(sender_id, SenderRecord{}).first;
    }
    it->second.last_frame_at = clock.now();
    ++it->second.frames;
  }

  void deliver(const Frame& frame) {
    if (frame.sender_id == options.server_id) {
      count(RejectReason::OwnFrame);
      return;
    }
    switch (replay_guard.check_and_record(frame.sender_id, frame.boot_id, frame.sequence, frame.timestamp_ms,
                                          clock.system_now_ms())) {
      case ReplayVerdict::Accepted: break;
      case ReplayVerdict::Replayed: count(RejectReason::Replayed); return;
      case ReplayVerdict::Stale: count(RejectReason::Stale); return;
      case ReplayVerdict::TooManySenders: count(RejectReason::TooManySenders); return;
    }
    remember_sender(frame.sender_id);
    ++frames_received;
    if (!handler) return;
    try {
      handler(frame);
    } catch (const std::exception& e) {
      ++handler_errors;
      spdlog::error("mesh: frame handler threw: {}", e.what());
    } catch (...) {
      ++handler_errors;
      spdlog::error("mesh: frame handler threw a non-exception");
    }
  }

  // At most one line per kRejectLogInterval: anyone who can reach the port could otherwise fill the log by
  // reconnecting with garbage. The counters keep the exact numbers.
  void log_rejection(RejectReason reason) {
    const auto now = clock.now();
    if (now - last_reject_log_at < kRejectLogInterval) {
      ++rejections_not_logged;
      return;
    }
    spdlog::warn("mesh: closing inbound connection: {} frame ({} similar lines suppressed)", to_string(reason),
                 rejections_not_logged);
    last_reject_log_at = now;
    rejections_not_logged = 0;
  }

  // Reads what is available and handles every complete frame; false when the connection must be closed.
  bool read_from(InboundConnection& conn) {
    std::uint8_t chunk[kMaxFrameBytes];
    // A frame is at most kMaxFrameBytes and complete frames are consumed below, so the buffer only ever holds
    // the prefix of one frame, which is shorter than kMaxFrameBytes: there is always room to read into.
    QUEEN_ASSERT(conn.buffer.size() < kMaxFrameBytes, "the buffer holds at most an incomplete frame");
    const std::size_t room = kMaxFrameBytes - conn.buffer.size();
    const ssize_t n = ::recv(conn.fd.get(), chunk, room, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
    if (n <= 0) {
      if (!conn.buffer.empty()) count(RejectReason::Truncated);
      return false;
    }
    conn.last_bytes_at = clock.now();
    conn.buffer.insert(conn.buffer.end(), chunk, chunk + n);

    std::size_t offset = 0;
    while (true) {
      const DecodeResult result =
          decode_frame(conn.buffer.data() + offset, conn.buffer.size() - offset, options.secret);
      if (result.status == DecodeStatus::NeedMoreBytes) break;
      if (result.status != DecodeStatus::Ok) {
        const RejectReason reason = reject_reason_for(result.status);
        count(reason);
        log_rejection(reason);
        return false;
      }
      offset += result.consumed;
      deliver(result.frame);
    }
    conn.buffer.erase(conn.buffer.begin(), conn.buffer.begin() + static_cast<std::ptrdiff_t>(offset));
    return true;
  }

  void accept_connections(std::vector<std::unique_ptr<InboundConnection>>& conns) {
    for (int i = 0; i < kMaxAcceptsPerTurn; ++i) {
      sockaddr_storage source{};
      socklen_t source_length = sizeof(source);
      detail::FileDescriptor fd(::accept4(listener.get(), reinterpret_cast<sockaddr*>(&source), &source_length,
                                          SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!fd.valid()) return;  // EAGAIN: nothing more pending; other errors: retried next turn
      const std::string source_host = detail::numeric_host(reinterpret_cast<sockaddr*>(&source), source_length);
      if (!peer_sources.allows(source_host, clock.now())) {
        count(RejectReason::UnknownPeer);
        log_rejection(RejectReason::UnknownPeer);
        continue;  // fd closes here, before a byte is read
      }
      if (conns.size() >= options.max_inbound_connections) {
        ++inbound_refused;
        continue;  // fd closes here
      }
      auto conn = std::make_unique<InboundConnection>();
      conn->fd = std::move(fd);
      conn->buffer.reserve(kMaxFrameBytes);
      conn->last_bytes_at = clock.now();
      conns.push_back(std::move(conn));
    }
  }

  void run_receiver() {
    std::vector<std::unique_ptr<InboundConnection>> conns;
    std::vector<pollfd> fds;
    auto next_heartbeat = clock.now() + options.heartbeat_interval;
    while (!stopping) {
      fds.clear();
      fds.push_back({wake.get(), POLLIN, 0});
      fds.push_back({listener.get(), POLLIN, 0});
      for (const auto& conn : conns) fds.push_back({conn->fd.get(), POLLIN, 0});
      const auto until_heartbeat =
          std::chrono::duration_cast<std::chrono::milliseconds>(next_heartbeat - clock.now());
      const auto timeout = std::clamp(until_heartbeat, std::chrono::milliseconds(0), kReceiveTick);
      const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
      if (stopping) break;

      if (ready > 0) {
        if (fds[0].revents != 0) detail::drain_wake(wake.get());
        // Connections first (their pollfd indexes match `conns` as it was when polled), then new ones.
        std::vector<bool> keep(conns.size(), true);
        for (std::size_t i = 0; i < conns.size(); ++i) {
          if (fds[i + 2].revents != 0) keep[i] = read_from(*conns[i]);
        }
        std::size_t i = 0;
        conns.erase(std::remove_if(conns.begin(), conns.end(), [&](const auto&) { return !keep[i++]; }),
                    conns.end());
        if (fds[1].revents != 0) accept_connections(conns);
      }

      const auto now = clock.now();
      const auto is_idle = [&](const auto& c) { return now - c->last_bytes_at > options.dead_threshold; };
      // Counted before the sockets close, so whoever sees the close also sees the count.
      inbound_idle_closed += static_cast<std::uint64_t>(std::count_if(conns.begin(), conns.end(), is_idle));
      conns.erase(std::remove_if(conns.begin(), conns.end(), is_idle), conns.end());
      inbound_open = conns.size();

      if (now >= next_heartbeat) {
        broadcast(make_heartbeat());
        next_heartbeat = now + options.heartbeat_interval;
      }
    }
    inbound_open = 0;
  }

  // ---- shared -----------------------------------------------------------------------------------------------

  void broadcast(Frame frame) {
    if (!links_ready || stopping) return;
    frame.sender_id = options.server_id;
    frame.boot_id = boot_id;
    std::lock_guard<std::mutex> lock(broadcast_mu);
    frame.sequence = last_sequence + 1;
    frame.timestamp_ms = clock.system_now_ms();
    auto encoded = encode_frame(frame, options.secret);
    if (!encoded) {
      ++frames_unencodable;
      return;
    }
    last_sequence = frame.sequence;
    ++frames_broadcast;
    const auto shared = std::make_shared<const Bytes>(std::move(*encoded));
    for (auto& link : links) offer(*link, shared);
  }
};

MeshNode::MeshNode(MeshOptions options, const util::Clock& clock)
    : impl_(std::make_unique<Impl>(std::move(options), clock)) {}

MeshNode::~MeshNode() { stop(); }

void MeshNode::set_handler(FrameHandler handler) {
  if (impl_->started) {
    spdlog::error("mesh: set_handler called after start(); ignored");
    return;
  }
  impl_->handler = std::move(handler);
}

std::string MeshNode::start() {
  Impl& d = *impl_;
  if (d.started) return "mesh node already started";
  const auto errors = validate_options(d.options);
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : "; ") + e;
    return joined;
  }
  d.started = true;
  if (d.options.peers.empty()) {
    spdlog::info("mesh: no peers configured, nothing bound (in-process wake-ups only)");
    return {};
  }
  std::string error;
  d.listener = detail::listen_tcp(d.options.listen_host, d.options.listen_port, kListenBacklog, d.bound_port, error);
  if (!d.listener.valid()) {
    d.started = false;
    return "mesh: cannot listen on " + d.options.listen_host + ":" + std::to_string(d.options.listen_port) + ": " +
           error;
  }
  d.wake = detail::make_wake_descriptor();
  if (!d.wake.valid()) {
    d.listener.reset();
    d.started = false;
    return "mesh: cannot create eventfd";
  }
  for (const auto& peer : d.options.peers) {
    auto link = std::make_unique<PeerLink>(peer);
    PeerLink* raw = link.get();
    // A body never throws on its own; were it to, the link retries after the longest reconnect backoff.
    raw->sender = std::make_unique<util::BackgroundWorker>(
        "mesh-peer-" + std::to_string(d.links.size()), d.clock, [&d, raw] { return d.sender_round(*raw); },
        d.options.reconnect_backoff_max);
    d.links.push_back(std::move(link));
  }
  d.links_ready = true;
  d.receive_thread = std::thread([&d] { d.run_receiver(); });
  for (auto& link : d.links) link->sender->start();
  spdlog::info("mesh: server id {} listening on {}:{} with {} peer(s)", d.options.server_id, d.options.listen_host,
               d.bound_port, d.links.size());
  return {};
}

void MeshNode::stop() {
  Impl& d = *impl_;
  if (!d.started || d.stopped) return;
  d.stopped = true;
  d.stopping = true;
  if (d.wake.valid()) detail::signal_wake(d.wake.get());
  for (auto& link : d.links) {
    std::lock_guard<std::mutex> lock(link->mu);
    // Unblocks a send stuck on a peer that does not read; the sender still owns and closes the socket.
    if (link->socket_fd >= 0) ::shutdown(link->socket_fd, SHUT_RDWR);
  }
  if (d.receive_thread.joinable()) d.receive_thread.join();
  for (auto& link : d.links) {
    link->sender->stop();
    d.close_link(*link);
  }
  d.listener.reset();
  d.wake.reset();
}

bool MeshNode::enabled() const { return impl_->started && !impl_->stopped && !impl_->links.empty(); }

std::uint16_t MeshNode::listening_port() const { return impl_->listener.valid() ? impl_->bound_port : 0; }

const std::string& MeshNode::server_id() const { return impl_->options.server_id; }

std::uint64_t MeshNode::boot_id() const { return impl_->boot_id; }

void MeshNode::broadcast(Frame frame) { impl_->broadcast(std::move(frame)); }

MeshStats MeshNode::stats() const {
  const Impl& d = *impl_;
  MeshStats s;
  s.enabled = enabled();
  s.listen_port = listening_port();
  for (const auto& link : d.links) {
    PeerLinkStats p;
    p.address = link->address_text;
    {
      std::lock_guard<std::mutex> lock(link->mu);
      p.connected = link->connected;
      p.queued_frames = link->queue.size();
      p.queued_bytes = link->queued_bytes;
      p.last_error = link->last_error;
    }
    p.frames_sent = link->frames_sent;
    p.frames_dropped_peer_down = link->dropped_peer_down;
    p.frames_dropped_queue_full = link->dropped_queue_full;
    p.connects = link->connects;
    p.connect_failures = link->connect_failures;
    s.peers.push_back(std::move(p));
  }
  {
    const auto now = d.clock.now();
    std::lock_guard<std::mutex> lock(d.senders_mu);
    for (const auto& [id, record] : d.senders) {
      RemoteSenderStats r;
      r.server_id = id;
      r.last_frame_age_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - record.last_frame_at).count();
      r.alive = now - record.last_frame_at <= d.options.dead_threshold;
      r.frames_received = record.frames;
      s.senders.push_back(std::move(r));
    }
  }
  std::sort(s.senders.begin(), s.senders.end(),
            [](const auto& a, const auto& b) { return a.server_id < b.server_id; });
  s.frames_broadcast = d.frames_broadcast;
  s.frames_unencodable = d.frames_unencodable;
  s.frames_received = d.frames_received;
  for (std::size_t i = 0; i < kRejectReasonCount; ++i) s.rejected[i] = d.rejected[i];
  s.inbound_connections = d.inbound_open;
  s.inbound_refused = d.inbound_refused;
  s.inbound_idle_closed = d.inbound_idle_closed;
  s.handler_errors = d.handler_errors;
  return s;
}

}  // namespace queen::mesh
