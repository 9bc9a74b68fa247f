// The tracker served at GET /api/analytics/script.js (under 2 KB): one page view with
// navigator.sendBeacon at load and after each history navigation (pushState, replaceState,
// popstate) that changes the path; with respectDoNotTrack it sends nothing when the browser
// says Do Not Track. It posts to the origin it was loaded from.
#pragma once

#include <string>

namespace cairn::analytics {

std::string TrackerScript(bool respect_do_not_track);

}  // namespace cairn::analytics
