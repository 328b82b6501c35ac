// One keep-alive HTTP/1.1 connection to the broker (Poco::Net::HTTPClientSession).
// Not thread-safe: each bench thread owns its own client.
#pragma once

#include <memory>
#include <string>

namespace Poco::Net { class HTTPClientSession; }

namespace bench {

struct HttpReply {
    int status = 0;      // 0: transport failure (see error)
    std::string body;
    std::string error;
    bool ok() const { return status >= 200 && status < 300; }
};

struct BrokerAddress {
    std::string host;
    int port = 0;
};

// "http://host:port[/...]" -> host and port (port 80 when absent); nullopt-like empty host on error.
BrokerAddress parseBrokerUrl(const std::string& url);

class BrokerClient {
public:
    BrokerClient(const BrokerAddress& address, int timeoutSeconds);
    ~BrokerClient();
    BrokerClient(const BrokerClient&) = delete;
    BrokerClient& operator=(const BrokerClient&) = delete;

    HttpReply get(const std::string& pathAndQuery);
    HttpReply post(const std::string& path, const std::string& jsonBody);
    HttpReply del(const std::string& path);

private:
    HttpReply send(const std::string& method, const std::string& path, const std::string* jsonBody);
    void reconnect();

    BrokerAddress address_;
    int timeoutSeconds_;
    std::unique_ptr<Poco::Net::HTTPClientSession> session_;
};

} // namespace bench
