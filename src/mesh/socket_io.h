#pragma once
// Thin POSIX TCP helpers for the mesh (internal to src/mesh). Plain sockets rather than Poco::Net so the receive
// loop can poll the listener, every inbound connection and a wake-up descriptor in one poll() call.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/socket.h>

namespace queen::mesh::detail {

// Owns one file descriptor; closes it on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { reset(); }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A non-blocking listening socket bound to host:port (port 0 = ephemeral). On failure returns an invalid
// descriptor and sets error. bound_port receives the port actually bound.
FileDescriptor listen_tcp(const std::string& host, std::uint16_t port, int backlog, std::uint16_t& bound_port,
                          std::string& error);

// A connected, blocking socket whose sends give up after write_timeout (SO_SNDTIMEO), with TCP_NODELAY.
// Resolution and connect together are bounded by connect_timeout per resolved address.
FileDescriptor connect_tcp(const std::string& host, std::uint16_t port, std::chrono::milliseconds connect_timeout,
                           std::chrono::milliseconds write_timeout, std::string& error);

// Writes every byte or reports failure (error, timeout, peer gone). Never raises SIGPIPE.
bool send_all(int fd, const std::uint8_t* data, std::size_t size);

// True when a socket we only write to has been closed or reset by the peer (it is readable: EOF or error).
// Bytes a peer sends on it are read and discarded: the mesh protocol is one-way per connection.
bool peer_has_closed(int fd);

void set_non_blocking(int fd);

// The numeric form of a socket address ("127.0.0.1", "::1"); an IPv4-mapped IPv6 address gives its IPv4 form,
// so one peer compares equal however the listener received it. Empty for a family other than IPv4/IPv6.
std::string numeric_host(const sockaddr* address, socklen_t length);

// Every address `host` resolves to, in numeric_host form; empty (and error set) when it does not resolve.
std::vector<std::string> resolve_numeric_hosts(const std::string& host, std::string& error);

// An eventfd used to wake a poll() loop from another thread.
FileDescriptor make_wake_descriptor();
void signal_wake(int fd);
void drain_wake(int fd);

}  // namespace queen::mesh::detail
