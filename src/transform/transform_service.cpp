#include "transform/transform_service.hpp"

#include <array>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "storage/limits.hpp"
#include "storage/media_type.hpp"

namespace cairn::transform {
namespace {

Error QueueFull() {
  Error error = Error::Unavailable("Too many image transforms are waiting; retry shortly");
  error.retry_after_seconds = 1;
  return error;
}

}  // namespace

Result<std::unique_ptr<TransformService>> TransformService::Start(TransformSettings settings) {
  // libvips starts with the first transform (TransformImage): its format modules and their
  // libraries (HEIF, PDF, ImageMagick…) would otherwise double the memory of an idle server.
  std::unique_ptr<TransformService> service(new TransformService(std::move(settings)));
  CAIRN_TRY(service->cache_.Start());
  log::Info("image transforms: cache " + service->cache_.directory().string() + " (" +
            std::to_string(service->cache_.entry_count()) + " entries, " +
            std::to_string(service->cache_.size_bytes() >> 10) + " KiB), " +
            std::to_string(service->settings_.threads) + " at once, " +
            std::to_string(service->settings_.queue) + " waiting");
  return service;
}

TransformService::TransformService(TransformSettings settings)
    : settings_(std::move(settings)), cache_(settings_.cache_dir, settings_.cache_max_bytes) {}

std::string TransformService::Key(std::string_view bucket, std::string_view path,
                                  const Params& resolved, std::string_view source_etag) {
  std::string text = "cairn transform v1\n";
  text += bucket;
  text += '/';
  text += path;
  text += '\n';
  text += Normalize(resolved);
  text += '\n';
  text += source_etag;
  return crypto::Sha256Hex(text);
}

Status TransformService::Enter() {
  std::unique_lock lock(slots_mutex_);
  if (running_ < settings_.threads) {
    ++running_;
    return {};
  }
  if (waiting_ >= settings_.queue) return QueueFull();
  ++waiting_;
  slot_free_.wait(lock, [this] { return running_ < settings_.threads; });
  --waiting_;
  ++running_;
  return {};
}

void TransformService::Leave() {
  {
    const std::lock_guard lock(slots_mutex_);
    --running_;
  }
  slot_free_.notify_one();
}

Result<std::unique_ptr<ObjectInput>> TransformService::OpenSource(storage::ObjectStore& store,
                                                                  std::string_view bucket,
                                                                  const storage::ObjectInfo& info,
                                                                  SourceType& type) {
  CAIRN_ASSIGN_OR_RETURN(auto reader, store.Open(bucket, info.path, {0, info.size}));
  std::string head;
  std::array<char, 64 * 1024> buffer{};
  // The type comes from the bytes (D46), not from the name or what was stored about it.
  while (head.size() < storage::kSniffBytes) {
    CAIRN_ASSIGN_OR_RETURN(const std::size_t got, reader->Read(buffer));
    if (got == 0) break;
    head.append(buffer.data(), got);
  }
  type = SourceTypeOf(storage::DetectMediaType(head));
  if (type != SourceType::kSvg && type != SourceType::kNotImage && info.size > kMaxSourceBytes) {
    return Error::Validation("The file cannot be transformed",
                             {{"file", "is larger than " + std::to_string(kMaxSourceBytes >> 20) +
                                           " MiB, the most a transform reads"}});
  }
  return std::make_unique<ObjectInput>(store, bucket, info.path, info.size, std::move(head),
                                       std::move(reader));
}

void TransformService::Produce(storage::ObjectStore& store, std::string_view bucket,
                               const storage::ObjectInfo& info, const Params& params,
                               const std::string& key, Flight& flight) {
  // The slot is taken before the source is opened, so at most `threads` transforms read at once.
  if (auto entered = Enter(); !entered) {
    flight.error = entered.error();
    return;
  }
  struct SlotGuard {
    TransformService& service;
    ~SlotGuard() { service.Leave(); }
  } slot{*this};
  SourceType type = SourceType::kNotImage;
  auto source = OpenSource(store, bucket, info, type);
  if (!source) {
    flight.error = source.error();
    return;
  }
  if (type == SourceType::kSvg) {
    flight.pass_through = true;
    return;
  }
  if (type == SourceType::kNotImage) {
    flight.error = Error::Validation(
        "Only images can be transformed",
        {{"file",
          "is not an image of a transformable type (JPEG, PNG, WebP, AVIF, GIF, TIFF, "
          "SVG)"}});
    return;
  }
  if (settings_.before_transform) settings_.before_transform(key);
  transforms_run_.fetch_add(1);
  const Output output = OutputFor(params.format.value_or(Format::kOrigin), type);
  auto encoded = TransformImage(**source, type, params, output, settings_.limits);
  // A storage failure while libvips read is the storage's error, not a bad image.
  if (!encoded) {
    if (auto failure = (*source)->failure()) encoded = std::move(*failure);
  }
  if (!encoded) {
    flight.error = encoded.error();
    return;
  }
  if (auto stored = cache_.Put(key, output, encoded->bytes); !stored) {
    log::Warn("image transforms: " + stored.error().detail + "; served without caching");
  }
  flight.output = output;
  flight.bytes = std::make_shared<const std::string>(std::move(encoded->bytes));
}

Result<TransformService::Served> TransformService::Get(storage::ObjectStore& store,
                                                       std::string_view bucket,
                                                       const storage::ObjectInfo& info,
                                                       const Params& params,
                                                       const std::string& key) {
  const auto from_cache = [this, &key]() -> std::optional<Served> {
    auto hit = cache_.Find(key);
    if (!hit) return std::nullopt;
    Served served;
    served.output = hit->output;
    served.size = hit->size;
    served.file = std::move(hit->file);
    return served;
  };
  if (auto served = from_cache()) return std::move(*served);

  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::unique_lock lock(flights_mutex_);
    if (auto it = flights_.find(key); it != flights_.end()) {
      flight = it->second;
      flights_done_.wait(lock, [&flight] { return flight->done; });
    } else {
      flight = std::make_shared<Flight>();
      flights_.emplace(key, flight);
      leader = true;
    }
  }
  if (leader) {
    // A hit may have landed between the first look and becoming the leader.
    if (auto served = from_cache()) {
      flight->output = served->output;
    } else {
      Produce(store, bucket, info, params, key, *flight);
    }
    {
      const std::lock_guard lock(flights_mutex_);
      flight->done = true;
      flights_.erase(key);
    }
    flights_done_.notify_all();
  }
  if (flight->error) return *flight->error;
  if (flight->pass_through) {
    Served served;
    served.pass_through = true;
    return served;
  }
  if (auto served = from_cache()) return std::move(*served);
  if (!flight->bytes) return Error::Internal("transform vanished from the cache");
  Served served;
  served.output = flight->output;
  served.size = flight->bytes->size();
  served.memory = flight->bytes;
  return served;
}

}  // namespace cairn::transform
