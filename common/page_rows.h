// The list endpoints without filters of their own, whole: a tenant's page
// (the tenant in the path, or in X-Tenant-ID) of a statement shaped
// "total + page" (json_rendered.h), and the caller's own records. Each is
// one round trip but path_tenant_page's (two). Header-only; no state.
#pragma once

#include <utility>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "json.h"
#include "json_rendered.h"
#include "result.h"
#include "router.h"
#include "validate.h"

namespace ca {

// The tenant in the path (`{tenantId}`, the route's first parameter) once
// the caller may read it as `min_role`; authenticate_path_tenant()'s 401,
// 404 or 403 otherwise, so that they come before any 422 of the request's
// own parameters.
inline Result<int64_t> path_tenant_for(Ctx& ctx, Role min_role = Role::kMember) {
  const int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, min_role));
  (void)who;
  return tenant_id;
}

// The whole of a GET that lists what belongs to the tenant in the path
// (`{tenantId}`, the route's first parameter), without filters of its own:
// authenticate_path_tenant() with `min_role`, the page parameters (default
// kDefaultPerPage), then `list` run with $1 the tenant, $2 per_page and $3 the
// offset, shaped as json_rendered.h's lists (a `json` and a `total` column).
// Answers 200 with the rendered page.
inline Result<Response> path_tenant_page(Ctx& ctx, const Statement& list,
                                         Role min_role = Role::kMember) {
  CA_TRY(tenant_id, path_tenant_for(ctx, min_role));
  CA_TRY(page, read_page_params(ctx.req, kDefaultPerPage));
  DbResult r = ctx.db.exec(list, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::text(200, rendered_page_text(r.rows(), page, {rendered_page_total(r.rows())}));
}

// The whole of a GET that lists a page of what belongs to the X-Tenant-ID
// tenant, without filters of its own: the page parameters (default
// `per_page`; a bad one is answered after the caller's 401/400/403), then
// the session check and `list` in one round trip, with $1 the tenant, $2
// per_page and $3 the offset. Answers 200 `{success, data: page}`.
inline Result<Response> tenant_header_page(Ctx& ctx, const Statement& list, int64_t per_page,
                                           int64_t max_per_page = kMaxPerPage) {
  Result<PageParams> page = read_page_params(ctx.req, per_page, max_per_page);
  if (!page.ok()) return refuse_after_tenant_auth(ctx, std::move(page.error()));
  CA_TRY(read, authenticate_tenant_header_read(ctx, list, {page->per_page, page->offset()}));
  DbResult& r = read.rows;
  if (!r.ok()) return Error::database(r.error());
  return Response::text(200, rendered_page_text(r.rows(), *page, {rendered_page_total(r.rows())},
                                                kSuccessDataBefore, kSuccessDataAfter));
}

// The whole of a GET that lists the caller's own records (`list` with $1
// the caller's user id, a `json` column): 200 `{<member>: [...]}`.
inline Result<Response> own_list(Ctx& ctx, const Statement& list, JsonKey member) {
  CA_TRY(who, authenticate(ctx));
  DbResult r = ctx.db.exec(list, {who.user_id});
  if (!r.ok()) return Error::database(r.error());
  Json out = json_object();
  json_add(out.get(), member, json_rendered_array(r.rows()));
  return Response::json(200, out);
}

}  // namespace ca
