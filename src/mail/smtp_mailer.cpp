#include "mail/smtp_mailer.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>

#include <algorithm>
#include <cstring>

#include "common/time.hpp"
#include "mail/limits.hpp"
#include "mail/message_builder.hpp"

namespace cairn::mail {
namespace {

// Port 465 is SMTP over TLS from the first byte (RFC 8314); every other port starts in clear and
// upgrades with STARTTLS.
constexpr int kImplicitTlsPort = 465;

// curl_global_init is not thread-safe, so it runs once, before any handle exists. There is no
// matching cleanup: the mailer lives as long as the process.
Status InitCurlOnce() {
  static const CURLcode result = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (result != CURLE_OK) {
    return Error::Internal(std::string("curl_global_init: ") + curl_easy_strerror(result));
  }
  return {};
}

Error InvalidSetting(const char* name, std::string message) {
  return Error::Validation(message, {FieldError{name, message}});
}

bool IsIpv6Literal(const std::string& host) {
  in6_addr address{};
  return ::inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

// A host name, an IPv4 address or an IPv6 literal: nothing that could change the URL's meaning
// (no `/`, `@`, `?`, and no `host:port`, since the port is SMTP_PORT).
bool IsValidHost(const std::string& host) {
  if (IsIpv6Literal(host)) return true;
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-';
  });
}

struct Upload {
  std::string_view data;
  std::size_t offset = 0;
};

std::size_t ReadUpload(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const std::size_t n = std::min(size * count, upload->data.size() - upload->offset);
  std::memcpy(buffer, upload->data.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

// Applies one option, remembering the first failure (an option this libcurl does not support).
class Options {
 public:
  explicit Options(CURL* curl) : curl_(curl) {}
  template <class T>
  void Set(CURLoption option, T value) {
    const CURLcode result = curl_easy_setopt(curl_, option, value);
    if (result != CURLE_OK && first_error_ == CURLE_OK) first_error_ = result;
  }
  CURLcode first_error() const { return first_error_; }

 private:
  CURL* curl_;
  CURLcode first_error_ = CURLE_OK;
};

}  // namespace

Result<std::unique_ptr<Mailer>> SmtpMailer::Make(Mailbox from, const MailSettings& settings) {
  if (!IsValidHost(settings.smtp_host)) {
    return InvalidSetting("SMTP_HOST",
                          "SMTP_HOST must be a host name or an IP address (the port is SMTP_PORT)");
  }
  if (settings.smtp_port < 1 || settings.smtp_port > 65535) {
    return InvalidSetting("SMTP_PORT", "SMTP_PORT must be between 1 and 65535");
  }
  if (settings.smtp_user.empty() && !settings.smtp_pass.empty()) {
    return InvalidSetting("SMTP_USER", "SMTP_USER is required when SMTP_PASS is set");
  }
  CAIRN_TRY(InitCurlOnce());
  // An IPv6 literal needs brackets in a URL.
  const std::string host =
      IsIpv6Literal(settings.smtp_host) ? "[" + settings.smtp_host + "]" : settings.smtp_host;
  const std::string scheme = settings.smtp_port == kImplicitTlsPort ? "smtps://" : "smtp://";
  std::string url = scheme + host + ":" + std::to_string(settings.smtp_port);
  return std::unique_ptr<Mailer>(new SmtpMailer(std::move(from), settings, std::move(url)));
}

SmtpMailer::SmtpMailer(Mailbox from, const MailSettings& settings, std::string url)
    : from_(std::move(from)),
      url_(std::move(url)),
      endpoint_(settings.smtp_host + ":" + std::to_string(settings.smtp_port)),
      user_(settings.smtp_user),
      pass_(settings.smtp_pass),
      require_tls_(settings.smtp_port == kImplicitTlsPort || !settings.smtp_user.empty()) {}

Status SmtpMailer::Send(const Message& message) {
  CAIRN_ASSIGN_OR_RETURN(const BuiltMessage built, BuildMessage(message, from_, time::NowMillis()));

  // One easy handle per call: handles must not be shared between threads, and a mail is rare
  // enough that connection reuse is not worth a pool.
  const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(),
                                                                 &curl_easy_cleanup);
  if (!curl) return Error::Internal("curl_easy_init failed");
  const std::string mail_from = "<" + built.envelope_from + ">";
  const std::string rcpt_to = "<" + built.envelope_to + ">";
  const std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> recipients(
      curl_slist_append(nullptr, rcpt_to.c_str()), &curl_slist_free_all);
  if (!recipients) return Error::Internal("curl_slist_append failed");
  Upload upload{built.data};
  char error_buffer[CURL_ERROR_SIZE] = {};

  Options options(curl.get());
  options.Set(CURLOPT_ERRORBUFFER, error_buffer);
  options.Set(CURLOPT_URL, url_.c_str());
  options.Set(CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // TRY: STARTTLS whenever the server offers it. ALL: fail rather than send credentials (or,
  // on 465, anything) in clear.
  options.Set(CURLOPT_USE_SSL, require_tls_ ? long{CURLUSESSL_ALL} : long{CURLUSESSL_TRY});
  if (!user_.empty()) {
    options.Set(CURLOPT_USERNAME, user_.c_str());
    options.Set(CURLOPT_PASSWORD, pass_.c_str());
  }
  options.Set(CURLOPT_MAIL_FROM, mail_from.c_str());
  options.Set(CURLOPT_MAIL_RCPT, recipients.get());
  options.Set(CURLOPT_UPLOAD, 1L);
  options.Set(CURLOPT_READFUNCTION, &ReadUpload);
  options.Set(CURLOPT_READDATA, &upload);
  options.Set(CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(built.data.size()));
  options.Set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(kConnectTimeout.count()));
  options.Set(CURLOPT_TIMEOUT_MS, static_cast<long>(kTotalTimeout.count()));
  // Send runs on worker threads: libcurl must not install signal handlers (SIGALRM for DNS
  // timeouts, SIGPIPE), which are process-wide.
  options.Set(CURLOPT_NOSIGNAL, 1L);
  if (options.first_error() != CURLE_OK) {
    return Error::Internal(std::string("curl_easy_setopt: ") +
                           curl_easy_strerror(options.first_error()));
  }

  const CURLcode result = curl_easy_perform(curl.get());
  if (result == CURLE_OK) return {};
  // The detail names the server and curl's reason; never the password (it is not in the URL
  // and curl does not echo it), nor the recipient or the message.
  std::string detail = "SMTP via " + endpoint_ + ": " + curl_easy_strerror(result);
  if (error_buffer[0] != '\0') detail += std::string(" (") + error_buffer + ")";
  long reply = 0;
  if (curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply) == CURLE_OK && reply != 0) {
    detail += "; last reply " + std::to_string(reply);
  }
  return Error::Unavailable("The email could not be sent", std::move(detail));
}

}  // namespace cairn::mail
