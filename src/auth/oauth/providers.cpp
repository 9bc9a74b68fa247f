#include "auth/oauth/providers.hpp"

#include <boost/json.hpp>
#include <cctype>

#include "net/http_client.hpp"

namespace cairn::auth::oauth {
namespace {

namespace json = boost::json;

constexpr std::string_view kOidcScopes = "openid email profile";

std::optional<Provider> BuiltIn(std::string_view name, const GitHubUrls& github) {
  Provider p;
  p.name = std::string(name);
  p.scopes = std::string(kOidcScopes);
  if (name == "google") {
    p.issuer = "https://accounts.google.com";
    p.authorization_endpoint = "https://accounts.google.com/o/oauth2/v2/auth";
    p.token_endpoint = "https://oauth2.googleapis.com/token";
    p.jwks_uri = "https://www.googleapis.com/oauth2/v3/certs";
    p.userinfo_endpoint = "https://openidconnect.googleapis.com/v1/userinfo";
  } else if (name == "microsoft") {
    p.issuer_per_tenant = true;
    p.authorization_endpoint = "https://login.microsoftonline.com/common/oauth2/v2.0/authorize";
    p.token_endpoint = "https://login.microsoftonline.com/common/oauth2/v2.0/token";
    p.jwks_uri = "https://login.microsoftonline.com/common/discovery/v2.0/keys";
    p.userinfo_endpoint = "https://graph.microsoft.com/oidc/userinfo";
  } else if (name == "gitlab") {
    p.issuer = "https://gitlab.com";
    p.authorization_endpoint = "https://gitlab.com/oauth/authorize";
    p.token_endpoint = "https://gitlab.com/oauth/token";
    p.jwks_uri = "https://gitlab.com/oauth/discovery/keys";
    p.userinfo_endpoint = "https://gitlab.com/oauth/userinfo";
  } else if (name == "github") {
    p.kind = ProviderKind::kGitHub;
    p.scopes = "read:user user:email";
    p.authorization_endpoint = github.web + "/login/oauth/authorize";
    p.token_endpoint = github.web + "/login/oauth/access_token";
    p.user_endpoint = github.api + "/user";
    p.emails_endpoint = github.api + "/user/emails";
  } else {
    return std::nullopt;
  }
  return p;
}

std::string TrimSlash(std::string_view url) {
  while (url.ends_with('/')) url.remove_suffix(1);
  return std::string(url);
}

}  // namespace

std::string CredentialVariable(std::string_view provider, std::string_view suffix) {
  std::string out;
  for (const char c : provider) {
    out.push_back(c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out + std::string(suffix);
}

Status CheckProviderUrl(std::string_view url, std::string_view what) {
  std::string_view authority = url;
  const bool https = authority.starts_with("https://");
  if (!https && !authority.starts_with("http://")) {
    return Error::Validation(std::string(what) + " must be an https URL (got \"" +
                             std::string(url) + "\")");
  }
  authority.remove_prefix(https ? 8 : 7);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  auto endpoint = net::Endpoint::Parse((https ? "https://" : "http://") + std::string(authority));
  if (!endpoint.ok()) {
    return Error::Validation(std::string(what) + ": " + endpoint.error().message);
  }
  const std::string& host = endpoint->host;
  const bool loopback = host == "localhost" || host == "::1" || host.starts_with("127.");
  if (!https && !loopback) {
    return Error::Validation(std::string(what) +
                             " must use https (plain http only on a loopback host)");
  }
  return {};
}

Result<std::vector<Provider>> ConfiguredProviders(const config::AuthConfig& config,
                                                  const CredentialLookup& env,
                                                  const GitHubUrls& github) {
  std::vector<Provider> out;
  std::vector<FieldError> missing;
  for (const auto& strategy : config.strategies) {
    if (strategy.type != "oauth") continue;
    const json::value* providers = strategy.properties.if_contains("providers");
    if (providers == nullptr || !providers->is_array()) continue;
    for (const json::value& item : providers->get_array()) {
      Provider provider;
      if (item.is_string()) {
        auto built_in = BuiltIn(item.get_string(), github);
        if (!built_in) {
          return Error::Validation("Unknown OAuth provider '" + std::string(item.get_string()) +
                                   "': use google, github, microsoft, gitlab or {name, issuer}");
        }
        provider = std::move(*built_in);
      } else if (item.is_object()) {
        const json::object& generic = item.get_object();
        const json::value* name = generic.if_contains("name");
        const json::value* issuer = generic.if_contains("issuer");
        if (name == nullptr || !name->is_string() || issuer == nullptr || !issuer->is_string()) {
          return Error::Validation("An OAuth provider object needs a name and an issuer");
        }
        provider.name = std::string(name->get_string());
        // Kept exactly as written: tokens' `iss` must equal it, trailing slash and all (Auth0's
        // issuers end with one); discovery appends to it without the slash (OIDC Discovery 4).
        provider.issuer = std::string(issuer->get_string());
        CAIRN_TRY(
            CheckProviderUrl(provider.issuer, "The issuer of OAuth provider " + provider.name));
        provider.discovery_url = TrimSlash(provider.issuer) + "/.well-known/openid-configuration";
        provider.scopes = std::string(kOidcScopes);
      } else {
        continue;
      }
      const std::string id_name = CredentialVariable(provider.name, "_CLIENT_ID");
      const std::string secret_name = CredentialVariable(provider.name, "_CLIENT_SECRET");
      const auto id = env(id_name);
      const auto secret = env(secret_name);
      if (!id || id->empty() || !secret || secret->empty()) {
        const std::string message =
            "OAuth provider " + provider.name + " needs " + id_name + " and " + secret_name;
        missing.push_back({id_name, message});
        missing.push_back({secret_name, message});
        continue;
      }
      provider.client_id = *id;
      provider.client_secret = *secret;
      out.push_back(std::move(provider));
    }
  }
  if (!missing.empty()) {
    std::string message;
    for (std::size_t i = 0; i < missing.size(); i += 2) {
      message += (message.empty() ? "" : "; ") + missing[i].message;
    }
    return Error::Validation(std::move(message), std::move(missing));
  }
  return out;
}

}  // namespace cairn::auth::oauth
