#include "mesh/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace queen::mesh::detail {
namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};
using AddrInfoList = std::unique_ptr<addrinfo, AddrInfoDeleter>;

AddrInfoList resolve(const std::string& host, std::uint16_t port, bool passive, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    error = "cannot resolve '" + host + "': " + gai_strerror(rc);
    return nullptr;
  }
  return AddrInfoList(found);
}

}  // namespace

std::string numeric_host(const sockaddr* address, socklen_t length) {
  if (address == nullptr || (address->sa_family != AF_INET && address->sa_family != AF_INET6)) return {};
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      sockaddr_in v4{};
      v4.sin_family = AF_INET;
      std::memcpy(&v4.sin_addr, &v6->sin6_addr.s6_addr[12], sizeof(v4.sin_addr));
      return numeric_host(reinterpret_cast<const sockaddr*>(&v4), sizeof(v4));
    }
  }
  char text[NI_MAXHOST];
  if (getnameinfo(address, length, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) != 0) return {};
  return text;
}

std::vector<std::string> resolve_numeric_hosts(const std::string& host, std::string& error) {
  std::vector<std::string> hosts;
  const AddrInfoList addresses = resolve(host, 0, false, error);
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    std::string numeric = numeric_host(a->ai_addr, a->ai_addrlen);
    if (!numeric.empty() && std::find(hosts.begin(), hosts.end(), numeric) == hosts.end()) {
      hosts.push_back(std::move(numeric));
    }
  }
  return hosts;
}

namespace {

void set_blocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

// Connects a non-blocking socket within timeout; leaves it non-blocking.
bool connect_within(int fd, const sockaddr* addr, socklen_t len, std::chrono::milliseconds timeout,
                    std::string& error) {
  if (connect(fd, addr, len) == 0) return true;
  if (errno != EINPROGRESS) {
    error = errno_text("connect");
    return false;
  }
  pollfd p{fd, POLLOUT, 0};
  const int ready = poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) {
    error = ready == 0 ? "connect: timed out" : errno_text("poll");
    return false;
  }
  int so_error = 0;
  socklen_t so_len = sizeof so_error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0 || so_error != 0) {
    error = std::string("connect: ") + std::strerror(so_error != 0 ? so_error : errno);
    return false;
  }
  return true;
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

void FileDescriptor::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void set_non_blocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

FileDescriptor listen_tcp(const std::string& host, std::uint16_t port, int backlog, std::uint16_t& bound_port,
                          std::string& error) {
  AddrInfoList addresses = resolve(host, port, true, error);
  if (!addresses) return {};
  for (addrinfo* ai = addresses.get(); ai != nullptr; ai = ai->ai_next) {
    FileDescriptor fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      error = errno_text("socket");
      continue;
    }
    const int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      error = errno_text("bind");
      continue;
    }
    if (::listen(fd.get(), backlog) != 0) {
      error = errno_text("listen");
      continue;
    }
    sockaddr_storage local{};
    socklen_t local_len = sizeof local;
    getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &local_len);
    bound_port = ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&local)->sin6_port
                                                   : reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    set_non_blocking(fd.get());
    error.clear();
    return fd;
  }
  return {};
}

FileDescriptor connect_tcp(const std::string& host, std::uint16_t port, std::chrono::milliseconds connect_timeout,
                           std::chrono::milliseconds write_timeout, std::string& error) {
  AddrInfoList addresses = resolve(host, port, false, error);
  if (!addresses) return {};
  for (addrinfo* ai = addresses.get(); ai != nullptr; ai = ai->ai_next) {
    FileDescriptor fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd.valid()) {
      error = errno_text("socket");
      continue;
    }
    if (!connect_within(fd.get(), ai->ai_addr, ai->ai_addrlen, connect_timeout, error)) continue;
    set_blocking(fd.get());
    const int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(write_timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((write_timeout.count() % 1000) * 1000);
    setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    error.clear();
    return fd;
  }
  return {};
}

bool send_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // includes EAGAIN/EWOULDBLOCK: SO_SNDTIMEO expired
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool peer_has_closed(int fd) {
  std::uint8_t discard[256];
  // Bounded, so a peer that keeps writing to us cannot pin the sender thread here.
  for (int reads = 0; reads < 16; ++reads) {
    const ssize_t n = ::recv(fd, discard, sizeof discard, MSG_DONTWAIT);
    if (n > 0) continue;
    if (n == 0) return true;
    if (errno == EINTR) continue;
    return errno != EAGAIN && errno != EWOULDBLOCK;
  }
  return false;
}

FileDescriptor make_wake_descriptor() { return FileDescriptor(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)); }

void signal_wake(int fd) {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof one);
}

void drain_wake(int fd) {
  std::uint64_t value = 0;
  [[maybe_unused]] const ssize_t n = ::read(fd, &value, sizeof value);
}

}  // namespace queen::mesh::detail
