// POST /api/v1/transaction (docs/api-extensions.md): 200 for every business outcome
// (success true or false), 503 while the database is unreachable.
#include "http/api/routes.h"
#include "http/api/transaction_request.h"

namespace queen::http {

void register_transaction_routes(Router& router, const RouteContext& context) {
  broker::Transactions& transactions = context.broker.transactions();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/transaction", auth::AccessLevel::ReadWrite, [&transactions, &limits](const Request& request) {
    broker::TransactionCommand command = parse_transaction_body(request.body, limits);
    // The requester's tenant and subject, as on /push (docs/tenants.md).
    const broker::ProcedureOutcome outcome = transactions.run_transaction(
        std::move(command), broker::PushOrigin{request.principal.tenant, request.principal.subject});
    return Response::json(200, outcome.result_json);
  });
}

}  // namespace queen::http
