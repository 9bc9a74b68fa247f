#include "realtime/subscription.hpp"

#include "realtime/hub.hpp"

namespace cairn::realtime {

SubscriptionSlot::~SubscriptionSlot() {
  hub_.Release(user_id_);
}

Subscription::Subscription(SubscriptionSpec spec, std::unique_ptr<SubscriptionSlot> slot)
    : spec_(std::move(spec)), slot_(std::move(slot)) {
  // '\n' cannot occur in a role name; the filter and fields are the client's text as given.
  group_key_ = spec_.role + '\n' + (spec_.filter ? "f" + *spec_.filter : "-") + '\n' +
               (spec_.fields ? "s" + *spec_.fields : "-");
  if (spec_.fields) {
    std::string_view rest = *spec_.fields;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      field_names_.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
}

Subscription::~Subscription() {
  if (hub_ != nullptr) hub_->Unregister(this);
}

void Subscription::GoLive(Hub& hub) {
  if (hub.Register(this)) {
    hub_ = &hub;
  } else {
    Close(1001, "server shutting down");
  }
}

}  // namespace cairn::realtime
