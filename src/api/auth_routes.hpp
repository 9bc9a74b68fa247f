// /api/auth: Better Auth's REST surface (D10) over auth::AuthService. Registered only when the
// config has an `auth` section. auth_api.cpp holds the user routes, auth_admin_api.cpp the
// admin plugin's routes; auth_route_support.hpp their shared helpers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/session_layer.hpp"
#include "auth/auth_service.hpp"
#include "auth/two_factor_service.hpp"
#include "common/result.hpp"
#include "http/router.hpp"
#include "mail/mailer.hpp"

namespace cairn::auth::oauth {
class OAuthService;
}

namespace cairn::api {

// `two_factor` (null unless `auth.twoFactor: true`) puts the second factor into sign-in.
Status AddAuthRoutes(http::Router& router, auth::AuthService& auth, const SessionCookies& cookies,
                     auth::TwoFactorService* two_factor = nullptr);
Status AddAuthAdminRoutes(http::Router& router, auth::AuthService& auth,
                          const SessionCookies& cookies);
// Magic link and email OTP routes (auth_passwordless_api.cpp), for the strategies configured.
Status AddAuthPasswordlessRoutes(http::Router& router, auth::AuthService& auth,
                                 const SessionCookies& cookies);
// Better Auth's organization plugin (organization_api.cpp), when `auth.organizations` is true.
Status AddOrganizationRoutes(http::Router& router, auth::AuthService& auth,
                             std::shared_ptr<mail::Mailer> mailer);

// The oauth strategy's routes (api/oauth_api.cpp). `trusted_origins` are where callbackURL and
// errorCallbackURL may point (BASE_URL's origin and TRUSTED_ORIGINS).
Status AddOAuthRoutes(http::Router& router, auth::oauth::OAuthService& oauth,
                      const SessionCookies& cookies, std::vector<std::string> trusted_origins);
// sign-in/social, for the CSRF origin check; none without the oauth strategy.
std::vector<std::string> OAuthSignInPaths(const config::AuthConfig& config);

// The full paths of the routes that sign a browser in with a password (for the CSRF origin
// check); none without the emailAndPassword strategy, since those routes do not exist then.
std::vector<std::string> PasswordSignInPaths(const config::AuthConfig& config);
// The same for magic links and email codes (the routes that mail or take a sign-in secret).
std::vector<std::string> PasswordlessSignInPaths(const config::AuthConfig& config);

}  // namespace cairn::api
