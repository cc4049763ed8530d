-- setup gives each thread a number; done reads back what the threads counted
local handles = {}
function setup(thread)
   handles[#handles + 1] = thread
   thread:set("number", #handles)
   thread:set("config", { name = "t" .. #handles, sizes = { 1, 2 } })
end
function request()
   sent = (sent or 0) + 1
   return wrk.format("GET", "/from/" .. number)
end
function done(summary, latency, requests)
   total = 0
   for _, t in ipairs(handles) do
      total = total + t:get("sent")
   end
   p50, lo, hi, distinct = latency:percentile(50), latency.min, latency.max, #latency
   v1, c1 = latency(1)
   dur, reqs, status_errors = summary.duration, summary.requests, summary.errors.status
end
