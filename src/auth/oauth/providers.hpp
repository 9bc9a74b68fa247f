// OAuth providers (D18): the built-in ones with their published endpoints, and generic OpenID
// Connect providers (`{name, issuer}` in the config) whose endpoints come from discovery.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"

namespace cairn::auth::oauth {

enum class ProviderKind {
  kOidc,    // verifies an ID token; the user comes from its claims
  kGitHub,  // no ID token: the user and email endpoints of GitHub's REST API
};

struct Provider {
  std::string name;  // the id in routes: callback/{name}, accounts' providerId
  ProviderKind kind = ProviderKind::kOidc;
  std::string client_id, client_secret;
  std::string scopes;  // space-separated
  // Set for built-in providers; a generic provider fills them from discovery at startup.
  std::string issuer;
  std::string authorization_endpoint, token_endpoint, jwks_uri;
  // Asked for the address when the ID token carries none (OIDC Core 5.3; optional).
  std::string userinfo_endpoint;
  // Generic providers: {issuer}/.well-known/openid-configuration.
  std::string discovery_url;
  // Microsoft's multi-tenant endpoint: the token's `iss` names the user's tenant (`tid`).
  bool issuer_per_tenant = false;
  // GitHub-style providers: the user, and the addresses with GitHub's `verified` flag.
  // (Microsoft sends no `email_verified`: its addresses count as unverified, so they never join
  // an existing user by email.)
  std::string user_endpoint, emails_endpoint;
};

// Where GitHub lives: github.com, or a GitHub Enterprise Server (GITHUB_URL, GITHUB_API_URL).
struct GitHubUrls {
  std::string web = "https://github.com";
  std::string api = "https://api.github.com";
};

using CredentialLookup = std::function<std::optional<std::string>(const std::string& name)>;

// "<NAME>_CLIENT_ID" / "<NAME>_CLIENT_SECRET" for a provider name (upper-cased, '-' → '_').
std::string CredentialVariable(std::string_view provider, std::string_view suffix);

// The providers of the config's oauth strategy with their credentials. A provider without both
// variables, or an unknown built-in name, is an error naming what is missing.
Result<std::vector<Provider>> ConfiguredProviders(const config::AuthConfig& config,
                                                  const CredentialLookup& env,
                                                  const GitHubUrls& github);

// Outgoing provider URLs must be https, except on a loopback host (a provider on the same
// machine; the tests' stand-ins).
Status CheckProviderUrl(std::string_view url, std::string_view what);

}  // namespace cairn::auth::oauth
