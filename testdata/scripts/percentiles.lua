-- done writes latency figures in microseconds (the style of wrk's report.lua)
done = function(summary, latency, requests)
   local f = assert(io.open(os.getenv("GB_SCRIPT_OUT"), "w"))
   for _, p in ipairs({ 50, 90, 99 }) do
      f:write(string.format("p%g %d\n", p, latency:percentile(p)))
   end
   f:write(string.format("min %d\nmax %d\nrequests %d\nstatus_errors %d\n",
      latency.min, latency.max, summary.requests, summary.errors.status))
   local first, times = latency(1)
   f:write(string.format("first %d %d\n", first, times))
   f:close()
end
