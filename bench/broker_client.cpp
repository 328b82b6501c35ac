#include "broker_client.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

namespace bench {

BrokerAddress parseBrokerUrl(const std::string& url) {
    BrokerAddress address;
    try {
        const Poco::URI uri(url);
        if (uri.getScheme() != "http" || uri.getHost().empty()) return address;
        address.host = uri.getHost();
        address.port = uri.getPort();
    } catch (const Poco::Exception&) {
        address.host.clear();
    }
    return address;
}

BrokerClient::BrokerClient(const BrokerAddress& address, int timeoutSeconds)
    : address_(address), timeoutSeconds_(timeoutSeconds) {
    reconnect();
}

BrokerClient::~BrokerClient() = default;

void BrokerClient::reconnect() {
    session_ = std::make_unique<Poco::Net::HTTPClientSession>(address_.host, static_cast<Poco::UInt16>(address_.port));
    session_->setKeepAlive(true);
    session_->setTimeout(Poco::Timespan(timeoutSeconds_, 0));
}

HttpReply BrokerClient::get(const std::string& pathAndQuery) {
    return send(Poco::Net::HTTPRequest::HTTP_GET, pathAndQuery, nullptr);
}

HttpReply BrokerClient::post(const std::string& path, const std::string& jsonBody) {
    return send(Poco::Net::HTTPRequest::HTTP_POST, path, &jsonBody);
}

HttpReply BrokerClient::del(const std::string& path) {
    return send(Poco::Net::HTTPRequest::HTTP_DELETE, path, nullptr);
}

HttpReply BrokerClient::send(const std::string& method, const std::string& path, const std::string* jsonBody) {
    HttpReply reply;
    try {
        Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
        request.setKeepAlive(true);
        // An explicit length keeps the connection alive (Poco closes it otherwise).
        request.setContentLength(jsonBody ? static_cast<std::streamsize>(jsonBody->size()) : 0);
        if (jsonBody) request.setContentType("application/json");
        std::ostream& out = session_->sendRequest(request);
        if (jsonBody) out.write(jsonBody->data(), static_cast<std::streamsize>(jsonBody->size()));
        Poco::Net::HTTPResponse response;
        std::istream& in = session_->receiveResponse(response);
        Poco::StreamCopier::copyToString(in, reply.body);
        reply.status = static_cast<int>(response.getStatus());
    } catch (const Poco::Exception& e) {
        reply.status = 0;
        reply.error = e.displayText();
        reconnect(); // the connection state is unknown after a failure: start a fresh one
    } catch (const std::exception& e) {
        reply.status = 0;
        reply.error = e.what();
        reconnect();
    }
    return reply;
}

} // namespace bench
