#include "analytics/tracker_script.hpp"

namespace cairn::analytics {

std::string TrackerScript(bool respect_do_not_track) {
  // Field cuts match the collect body's limits (analytics/limits.hpp), so a long title or URL
  // never turns a page view into a 400.
  std::string script = "(function(w,d,n,h){var o=";
  script += respect_do_not_track ? "1" : "0";
  script += R"JS(;if(o&&(n.doNotTrack=="1"||w.doNotTrack=="1"))return;
var s=d.currentScript,e=(s&&s.src?new URL(s.src).origin:"")+"/api/analytics/collect",l,f=1;
function v(){var p=location.pathname;if(p===l)return;l=p;
var q=new URLSearchParams(location.search),b={p:p.slice(0,2000),t:d.title.slice(0,500),sw:screen.width,sh:screen.height};
if(f&&d.referrer)b.r=d.referrer.slice(0,2000);f=0;
[["us","source"],["um","medium"],["uc","campaign"],["ux","content"],["ut","term"]].forEach(function(k){var x=q.get("utm_"+k[1]);if(x)b[k[0]]=x.slice(0,200)});
n.sendBeacon(e,new Blob([JSON.stringify(b)],{type:"application/json"}))}
["pushState","replaceState"].forEach(function(m){var g=h[m];h[m]=function(){var r=g.apply(this,arguments);v();return r}});
w.addEventListener("popstate",v);v()})(window,document,navigator,history);
)JS";
  return script;
}

}  // namespace cairn::analytics
