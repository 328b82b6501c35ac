// queen-rabbitmq-anchor: the load of queen-bench's push and pop+ack scenarios against RabbitMQ, so that
// `make bench` can state Queen's throughput as a ratio to a broker measured in the same run on the same box.
// Durable on both sides: quorum queues (replicated log, fsync'd), persistent messages, publisher confirms.
// bench/README.md ("RabbitMQ anchor") describes the load and the output; scripts/bench-rabbitmq.sh starts the
// node this talks to.
#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../latency.h"
#include "../report.h"
#include "../scenarios.h"
#include "anchor_core.h"

namespace anchor {
namespace {

using Clock = std::chrono::steady_clock;
constexpr amqp_channel_t kChannel = 1;
// A wait for deliveries wakes this often to look at the scenario's deadline.
constexpr std::chrono::milliseconds kPollSlice{100};
// Pre-fill publishes in confirm batches of this size (it is not measured).
constexpr int kPrefillBatch = 1000;

class AmqpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

timeval toTimeval(Clock::duration duration) {
    const auto micros = std::max<std::int64_t>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(duration).count());
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(micros / 1'000'000);
    tv.tv_usec = static_cast<suseconds_t>(micros % 1'000'000);
    return tv;
}

std::string bytesToString(amqp_bytes_t bytes) { return {static_cast<const char*>(bytes.bytes), bytes.len}; }

// The server's reason for closing a channel or the connection.
std::string describeServerClose(const amqp_method_t& method) {
    if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
        const auto* close = static_cast<const amqp_connection_close_t*>(method.decoded);
        return "server closed the connection: " + std::to_string(close->reply_code) + " " +
               bytesToString(close->reply_text);
    }
    if (method.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const auto* close = static_cast<const amqp_channel_close_t*>(method.decoded);
        return "server closed the channel: " + std::to_string(close->reply_code) + " " +
               bytesToString(close->reply_text);
    }
    return "unexpected server method 0x" + std::to_string(method.id);
}

std::string describeReply(const amqp_rpc_reply_t& reply) {
    switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL: return "ok";
    case AMQP_RESPONSE_NONE: return "no reply from the server";
    case AMQP_RESPONSE_LIBRARY_EXCEPTION: return amqp_error_string2(reply.library_error);
    case AMQP_RESPONSE_SERVER_EXCEPTION: return describeServerClose(reply.reply);
    }
    return "unknown reply type";
}

void throwUnlessNormal(const amqp_rpc_reply_t& reply, const std::string& what) {
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) throw AmqpError(what + ": " + describeReply(reply));
}

// One AMQP connection with channel 1 open. Every blocking step is bounded by the I/O timeout.
class AmqpConnection {
public:
    AmqpConnection(const AnchorOptions& options, const std::string& purpose)
        : state_(amqp_new_connection()), timeout_(std::chrono::seconds(options.ioTimeoutSeconds)) {
        if (state_ == nullptr) throw AmqpError(purpose + ": out of memory");
        const std::string where = "RabbitMQ at " + options.host + ":" + std::to_string(options.port);
        try {
            amqp_socket_t* socket = amqp_tcp_socket_new(state_);
            if (socket == nullptr) throw AmqpError(purpose + ": cannot create a TCP socket");
            timeval connectTimeout = toTimeval(timeout_);
            const int opened = amqp_socket_open_noblock(socket, options.host.c_str(), options.port, &connectTimeout);
            if (opened != AMQP_STATUS_OK)
                throw AmqpError(purpose + ": cannot connect to " + where + ": " + amqp_error_string2(opened) +
                                " (is a node listening there? scripts/bench-rabbitmq.sh starts one)");
            timeval rpcTimeout = toTimeval(timeout_);
            amqp_set_handshake_timeout(state_, &rpcTimeout);
            amqp_set_rpc_timeout(state_, &rpcTimeout);
            throwUnlessNormal(amqp_login(state_, options.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                                         options.user.c_str(), options.password.c_str()),
                              purpose + ": login to " + where + " as " + options.user);
            amqp_channel_open(state_, kChannel);
            throwUnlessNormal(amqp_get_rpc_reply(state_), purpose + ": channel.open");
            channelOpen_ = true;
        } catch (...) {
            close();
            throw;
        }
    }
    ~AmqpConnection() { close(); }
    AmqpConnection(const AmqpConnection&) = delete;
    AmqpConnection& operator=(const AmqpConnection&) = delete;

    amqp_connection_state_t state() const { return state_; }
    Clock::duration timeout() const { return timeout_; }

    // The last RPC's reply, thrown when it is not normal.
    void check(const std::string& what) { throwUnlessNormal(amqp_get_rpc_reply(state_), what); }

    std::string serverVersion() const {
        const amqp_table_t* properties = amqp_get_server_properties(state_);
        for (int i = 0; properties != nullptr && i < properties->num_entries; ++i) {
            const amqp_table_entry_t& entry = properties->entries[i];
            if (bytesToString(entry.key) == "version" && entry.value.kind == AMQP_FIELD_KIND_UTF8)
                return bytesToString(entry.value.value.bytes);
        }
        return "unknown";
    }

private:
    void close() {
        if (state_ == nullptr) return;
        // Closing is best effort: a connection the server already closed has nothing to answer.
        if (channelOpen_) amqp_channel_close(state_, kChannel, AMQP_REPLY_SUCCESS);
        amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
        amqp_destroy_connection(state_);
        state_ = nullptr;
    }

    amqp_connection_state_t state_;
    Clock::duration timeout_;
    bool channelOpen_ = false;
};

void declareQuorumQueue(AmqpConnection& connection, const std::string& name) {
    amqp_table_entry_t queueType{};
    queueType.key = amqp_cstring_bytes("x-queue-type");
    queueType.value.kind = AMQP_FIELD_KIND_UTF8;
    queueType.value.value.bytes = amqp_cstring_bytes("quorum");
    amqp_table_t arguments{1, &queueType};
    amqp_queue_declare(connection.state(), kChannel, amqp_cstring_bytes(name.c_str()), /*passive=*/0,
                       /*durable=*/1, /*exclusive=*/0, /*auto_delete=*/0, arguments);
    connection.check("queue.declare " + name);
}

void deleteQueue(AmqpConnection& connection, const std::string& name) {
    amqp_queue_delete(connection.state(), kChannel, amqp_cstring_bytes(name.c_str()), 0, 0);
    connection.check("queue.delete " + name);
}

// Reads the next frame, or throws when none came within `wait`. Heartbeats are off, so a method
// frame is what a caller waits for; a close of the channel or connection is an error.
bool waitForMethod(AmqpConnection& connection, Clock::duration wait, amqp_frame_t& frame) {
    timeval tv = toTimeval(wait);
    const int status = amqp_simple_wait_frame_noblock(connection.state(), &frame, &tv);
    if (status == AMQP_STATUS_TIMEOUT) return false;
    if (status != AMQP_STATUS_OK) throw AmqpError(std::string("reading from the server: ") + amqp_error_string2(status));
    if (frame.frame_type != AMQP_FRAME_METHOD) return true;
    const amqp_method_number_t id = frame.payload.method.id;
    if (id == AMQP_CHANNEL_CLOSE_METHOD || id == AMQP_CONNECTION_CLOSE_METHOD)
        throw AmqpError(describeServerClose(frame.payload.method));
    return true;
}

// A publishing channel in confirm mode.
class Publisher {
public:
    Publisher(const AnchorOptions& options, const std::string& purpose)
        : connection_(options, purpose), body_(static_cast<std::size_t>(options.messageBytes), 'x') {
        amqp_confirm_select(connection_.state(), kChannel);
        connection_.check(purpose + ": confirm.select");
        properties_._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
        properties_.delivery_mode = AMQP_DELIVERY_PERSISTENT;
    }

    // Publishes `count` messages to `queue` (default exchange) and waits until the server confirmed
    // every one of them. Returns the messages nacked.
    std::uint64_t publishConfirmed(const std::string& queue, int count) {
        const std::uint64_t nackedBefore = tracker_.nackedCount();
        amqp_bytes_t body{body_.size(), body_.data()};
        corkSocket(true);
        for (int i = 0; i < count; ++i) {
            const int status = amqp_basic_publish(connection_.state(), kChannel, amqp_empty_bytes,
                                                  amqp_cstring_bytes(queue.c_str()), 0, 0, &properties_, body);
            if (status != AMQP_STATUS_OK)
                throw AmqpError("basic.publish to " + queue + ": " + amqp_error_string2(status));
            tracker_.published();
        }
        corkSocket(false);
        awaitConfirms();
        return tracker_.nackedCount() - nackedBefore;
    }

    std::uint64_t confirmed() const { return tracker_.confirmedCount(); }

private:
    // librabbitmq writes each message as its own TCP segment (TCP_NODELAY). Corked, a batch leaves in full
    // segments, as one push request of `batch` items does; uncorking sends what is left at once. Measured here
    // at batch 100: 15-24k msg/s and 25-33 us of server CPU per message corked, 10-11k and 35-37 us not.
    void corkSocket(bool on) {
        const int value = on ? 1 : 0;
        const int fd = amqp_get_sockfd(connection_.state());
        if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, sizeof value);
    }

    void awaitConfirms() {
        const Clock::time_point deadline = Clock::now() + connection_.timeout();
        while (tracker_.outstanding() > 0) {
            amqp_frame_t frame{};
            if (!waitForMethod(connection_, deadline - Clock::now(), frame))
                throw AmqpError("no publisher confirm within the I/O timeout (" +
                                std::to_string(tracker_.outstanding()) + " outstanding)");
            if (frame.frame_type != AMQP_FRAME_METHOD) continue;
            if (frame.payload.method.id == AMQP_BASIC_ACK_METHOD) {
                const auto* ack = static_cast<const amqp_basic_ack_t*>(frame.payload.method.decoded);
                tracker_.acked(ack->delivery_tag, ack->multiple != 0);
            } else if (frame.payload.method.id == AMQP_BASIC_NACK_METHOD) {
                const auto* nack = static_cast<const amqp_basic_nack_t*>(frame.payload.method.decoded);
                tracker_.nacked(nack->delivery_tag, nack->multiple != 0);
            }
        }
        amqp_maybe_release_buffers(connection_.state());
    }

    AmqpConnection connection_;
    std::string body_;
    amqp_basic_properties_t properties_{};
    ConfirmTracker tracker_;
};

// A consuming channel: prefetch = batch, manual acknowledgements.
class Consumer {
public:
    Consumer(const AnchorOptions& options, const std::string& queue, int batch, const std::string& purpose)
        : connection_(options, purpose), queue_(queue) {
        amqp_basic_qos(connection_.state(), kChannel, 0, static_cast<std::uint16_t>(batch), 0);
        connection_.check(purpose + ": basic.qos");
    }

    void start() {
        amqp_basic_consume(connection_.state(), kChannel, amqp_cstring_bytes(queue_.c_str()), amqp_empty_bytes,
                           /*no_local=*/0, /*no_ack=*/0, /*exclusive=*/0, amqp_empty_table);
        connection_.check("basic.consume " + queue_);
    }

    // The delivery tag of the next message, or nothing when `deadline` passed first. Throws after
    // the I/O timeout without a delivery.
    std::optional<std::uint64_t> nextDelivery(Clock::time_point deadline) {
        const Clock::time_point giveUp = Clock::now() + connection_.timeout();
        while (true) {
            const Clock::time_point now = Clock::now();
            if (now >= deadline) return std::nullopt;
            if (now >= giveUp) throw AmqpError("no delivery from " + queue_ + " within the I/O timeout");
            amqp_maybe_release_buffers(connection_.state());
            amqp_envelope_t envelope{};
            timeval slice = toTimeval(std::min<Clock::duration>({kPollSlice, deadline - now, giveUp - now}));
            const amqp_rpc_reply_t reply = amqp_consume_message(connection_.state(), &envelope, &slice, 0);
            if (reply.reply_type == AMQP_RESPONSE_NORMAL) {
                const std::uint64_t tag = envelope.delivery_tag;
                amqp_destroy_envelope(&envelope);
                return tag;
            }
            if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && reply.library_error == AMQP_STATUS_TIMEOUT)
                continue;
            if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
                reply.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
                // Some other method arrived first: read it (a close throws) and go on waiting.
                amqp_frame_t frame{};
                waitForMethod(connection_, connection_.timeout(), frame);
                continue;
            }
            throw AmqpError("consuming " + queue_ + ": " + describeReply(reply));
        }
    }

    void ackThrough(std::uint64_t deliveryTag) {
        const int status = amqp_basic_ack(connection_.state(), kChannel, deliveryTag, /*multiple=*/1);
        if (status != AMQP_STATUS_OK) throw AmqpError("basic.ack on " + queue_ + ": " + amqp_error_string2(status));
    }

    // basic.ack has no answer; one RPC on the same channel returns after the server handled the acks before it.
    void syncWithServer(int batch) {
        amqp_basic_qos(connection_.state(), kChannel, 0, static_cast<std::uint16_t>(batch), 0);
        connection_.check("basic.qos after the last ack");
    }

private:
    AmqpConnection connection_;
    std::string queue_;
};

// Worker threads connect first and wait here; the measured window starts when every one of them arrived.
class StartGate {
public:
    explicit StartGate(int workers) : waiting_(workers) {}
    void arriveAndWait() {
        std::unique_lock<std::mutex> lock(mutex_);
        --waiting_;
        changed_.notify_all();
        changed_.wait(lock, [&] { return open_; });
    }
    void waitForAll() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return waiting_ == 0; });
    }
    void open(Clock::time_point deadline) {
        std::lock_guard<std::mutex> lock(mutex_);
        deadline_ = deadline;
        open_ = true;
        changed_.notify_all();
    }
    Clock::time_point deadline() {
        std::lock_guard<std::mutex> lock(mutex_);
        return deadline_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    int waiting_;
    bool open_ = false;
    Clock::time_point deadline_;
};

// What the workers of one scenario found, merged under a lock when each finishes.
class Tally {
public:
    explicit Tally(std::size_t maxSamples) : samples_(maxSamples) {}
    void add(std::int64_t messages, std::int64_t errors, bench::LatencySamples&& samples, Clock::time_point finished) {
        std::lock_guard<std::mutex> lock(mutex_);
        messages_ += messages;
        errors_ += errors;
        samples_.absorb(std::move(samples));
        lastFinish_ = std::max(lastFinish_, finished);
    }
    void fail(const std::string& error) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++errors_;
        if (firstError_.empty()) firstError_ = error;
    }
    void fillInto(ScenarioResult& result, Clock::time_point start) {
        std::lock_guard<std::mutex> lock(mutex_);
        result.messages = messages_;
        result.errors = errors_;
        result.firstError = firstError_;
        result.droppedSamples = samples_.dropped();
        result.latency = bench::summarize(samples_.kept());
        const Clock::time_point end = std::max(lastFinish_, start);
        result.elapsedSeconds = std::chrono::duration<double>(end - start).count();
        result.messagesPerSecond =
            result.elapsedSeconds > 0 ? static_cast<double>(result.messages) / result.elapsedSeconds : 0;
    }

private:
    std::mutex mutex_;
    std::int64_t messages_ = 0;
    std::int64_t errors_ = 0;
    std::string firstError_;
    bench::LatencySamples samples_;
    Clock::time_point lastFinish_{};
};

std::optional<std::string> readFile(const std::string& path) {
    std::ifstream file(path);
    if (!file) return std::nullopt;
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// Every process of /proc with its parent and CPU (its own and its reaped children's).
std::vector<ProcessCpu> readProcesses() {
    std::vector<ProcessCpu> processes;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
        const std::string name = entry.path().filename().string();
        int pid = 0;
        const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (ec != std::errc() || ptr != name.data() + name.size()) continue;
        const auto stat = readFile("/proc/" + name + "/stat");
        if (!stat) continue; // it exited meanwhile
        if (const auto process = parseProcStat(pid, *stat)) processes.push_back(*process);
    }
    return processes;
}

std::optional<std::uint64_t> serverCpuTicks(int serverPid) {
    if (serverPid == 0) return std::nullopt;
    return treeCpuTicks(readProcesses(), serverPid);
}

// Runs `worker(index, gate)` on `count` threads; measures the window between the gate opening and the last
// worker finishing, with the server's CPU sampled at both ends.
void runWindow(const AnchorOptions& options, int count, const std::function<void(int, StartGate&)>& worker,
               Tally& tally, ScenarioResult& result) {
    StartGate gate(count);
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) threads.emplace_back(worker, i, std::ref(gate));
    gate.waitForAll();
    const auto ticksBefore = serverCpuTicks(options.serverPid);
    const Clock::time_point start = Clock::now();
    gate.open(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.durationSeconds)));
    for (auto& thread : threads) thread.join();
    const auto ticksAfter = serverCpuTicks(options.serverPid);
    tally.fillInto(result, start);
    result.serverCpuUsPerMessage = cpuMicrosPerMessage(ticksBefore, ticksAfter, sysconf(_SC_CLK_TCK), result.messages);
}

std::int64_t microsSince(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

ScenarioResult runPush(const AnchorOptions& options, const std::vector<std::string>& queues, int batch) {
    ScenarioResult result;
    result.scenario = kScenarioPush;
    result.batch = batch;
    result.producers = options.producers;
    result.queues = options.queues;
    Tally tally(options.maxLatencySamples);
    std::atomic<std::int64_t> issued{0}; // messages claimed against --max-messages
    const auto producer = [&](int index, StartGate& gate) {
        bench::LatencySamples samples(options.maxLatencySamples);
        std::int64_t messages = 0;
        std::int64_t nacked = 0;
        std::optional<Publisher> publisher;
        try {
            publisher.emplace(options, "producer " + std::to_string(index));
        } catch (const std::exception& error) {
            tally.fail(error.what());
        }
        gate.arriveAndWait();
        if (!publisher) return;
        const Clock::time_point deadline = gate.deadline();
        try {
            for (std::int64_t k = 0; Clock::now() < deadline; ++k) {
                if (issued.fetch_add(batch) + batch > options.maxMessagesPerScenario) break;
                const Clock::time_point sent = Clock::now();
                const std::uint64_t before = publisher->confirmed();
                nacked += static_cast<std::int64_t>(
                    publisher->publishConfirmed(queues[static_cast<std::size_t>(queueForBatch(index, k, options.queues))], batch));
                samples.record(microsSince(sent));
                messages += static_cast<std::int64_t>(publisher->confirmed() - before);
            }
        } catch (const std::exception& error) {
            tally.fail(error.what());
        }
        tally.add(messages, nacked, std::move(samples), Clock::now());
    };
    runWindow(options, options.producers, producer, tally, result);
    return result;
}

// Fills every queue with `perQueue` messages, one publishing connection per queue, unmeasured.
void prefillQueues(const AnchorOptions& options, const std::vector<std::string>& queues, std::int64_t perQueue) {
    std::mutex mutex;
    std::string firstError;
    std::vector<std::thread> threads;
    for (const std::string& queue : queues) {
        threads.emplace_back([&, queue] {
            try {
                Publisher publisher(options, "pre-fill of " + queue);
                for (std::int64_t done = 0; done < perQueue;) {
                    const int count = static_cast<int>(std::min<std::int64_t>(kPrefillBatch, perQueue - done));
                    if (publisher.publishConfirmed(queue, count) != 0) throw AmqpError("the server nacked pre-fill messages");
                    done += count;
                }
            } catch (const std::exception& error) {
                std::lock_guard<std::mutex> lock(mutex);
                if (firstError.empty()) firstError = error.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    if (!firstError.empty()) throw AmqpError("pre-fill failed: " + firstError);
}

ScenarioResult runPopAck(const AnchorOptions& options, const std::vector<std::string>& queues, int batch) {
    const std::int64_t perQueue = std::min<std::int64_t>(
        prefillPerQueue(prefillCountFor(options, batch), options.queues),
        std::max<std::int64_t>(1, options.maxMessagesPerScenario / options.queues));
    prefillQueues(options, queues, perQueue);
    ScenarioResult result;
    result.scenario = kScenarioPopAck;
    result.batch = batch;
    result.consumers = options.queues;
    result.queues = options.queues;
    result.prefilled = perQueue * options.queues;
    Tally tally(options.maxLatencySamples);
    const auto consumer = [&](int index, StartGate& gate) {
        const std::string& queue = queues[static_cast<std::size_t>(index)];
        bench::LatencySamples samples(options.maxLatencySamples);
        std::int64_t acked = 0;
        std::optional<Consumer> channel;
        try {
            channel.emplace(options, queue, batch, "consumer " + std::to_string(index));
        } catch (const std::exception& error) {
            tally.fail(error.what());
        }
        gate.arriveAndWait();
        if (!channel) return;
        const Clock::time_point deadline = gate.deadline();
        try {
            channel->start();
            // One round trip: receive `batch` deliveries (prefetch lets no more through), then one
            // multiple ack for all of them; the next deliveries come only after the server took it.
            while (acked < perQueue && Clock::now() < deadline) {
                const Clock::time_point begun = Clock::now();
                const std::int64_t wanted = std::min<std::int64_t>(batch, perQueue - acked);
                std::int64_t received = 0;
                std::uint64_t lastTag = 0;
                while (received < wanted) {
                    const auto tag = channel->nextDelivery(deadline);
                    if (!tag) break;
                    lastTag = *tag;
                    ++received;
                }
                if (received < wanted) break; // the window closed mid-batch: that batch is not counted
                channel->ackThrough(lastTag);
                samples.record(microsSince(begun));
                acked += received;
            }
            channel->syncWithServer(batch);
        } catch (const std::exception& error) {
            tally.fail(error.what());
        }
        tally.add(acked, 0, std::move(samples), Clock::now());
    };
    runWindow(options, options.queues, consumer, tally, result);
    result.drained = result.messages == result.prefilled;
    return result;
}

std::vector<std::string> scenarioQueues(const AnchorOptions& options, const std::string& scenario, int batch,
                                        const std::string& runId) {
    std::vector<std::string> names;
    for (int i = 0; i < options.queues; ++i) names.push_back(queueName(options.queuePrefix, scenario, batch, runId, i));
    return names;
}

ScenarioResult runScenario(const AnchorOptions& options, AmqpConnection& admin, const std::string& scenario, int batch,
                           const std::string& runId) {
    const std::vector<std::string> queues = scenarioQueues(options, scenario, batch, runId);
    for (const std::string& queue : queues) declareQuorumQueue(admin, queue);
    ScenarioResult result;
    try {
        result = scenario == kScenarioPush ? runPush(options, queues, batch) : runPopAck(options, queues, batch);
    } catch (...) {
        // The scenario's own error is the one to report; deleting is best effort then.
        if (!options.keepQueues) {
            try {
                for (const std::string& queue : queues) deleteQueue(admin, queue);
            } catch (const std::exception&) {
            }
        }
        throw;
    }
    if (!options.keepQueues)
        for (const std::string& queue : queues) deleteQueue(admin, queue);
    return result;
}

int run(const AnchorOptions& options) {
    const std::string runId = bench::makeRunId();
    const std::string startedAt = bench::utcNowIso8601();
    // One connection up front: a broker that is not there fails here with one clear line.
    AmqpConnection admin(options, "anchor");
    const std::string version = admin.serverVersion();
    std::cout << "rabbitmq-anchor run " << runId << " at " << startedAt << "\n"
              << "conditions: RabbitMQ " << version << " at " << options.host << ":" << options.port << ", cores "
              << std::thread::hardware_concurrency() << ", duration " << options.durationSeconds << " s per scenario, "
              << options.producers << " producers, " << options.queues << " quorum queues (one consumer each), "
              << options.messageBytes << " B persistent messages, publisher confirms\n"
              << "server CPU: "
              << (options.serverPid != 0 ? "process tree of pid " + std::to_string(options.serverPid)
                                         : std::string("not measured (no --server-pid)"))
              << "\n"
              << formatColumnTitles() << "\n"
              << std::flush;
    std::vector<ScenarioResult> results;
    for (const std::string& scenario : options.scenarios) {
        for (int batch : options.batches) {
            results.push_back(runScenario(options, admin, scenario, batch, runId));
            std::cout << formatScenarioLine(results.back()) << "\n" << std::flush;
        }
    }
    if (!options.jsonPath.empty()) {
        std::ofstream out(options.jsonPath);
        out << resultsToJson(options, runId, startedAt, version, results);
        if (!out) throw std::runtime_error("cannot write " + options.jsonPath);
        std::cout << "results: " << options.jsonPath << "\n";
    }
    return 0;
}

} // namespace
} // namespace anchor

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const anchor::ParseResult parsed = anchor::parseAnchorOptions(args);
    if (parsed.helpRequested) {
        std::cout << anchor::usageText();
        return 0;
    }
    if (!parsed.options) {
        std::cerr << "queen-rabbitmq-anchor: " << parsed.error << "\n" << anchor::usageText();
        return 2;
    }
    try {
        return anchor::run(*parsed.options);
    } catch (const std::exception& error) {
        std::cerr << "queen-rabbitmq-anchor: " << error.what() << "\n";
        return 1;
    }
}
