-- Cost table (b): a new request per call, built with wrk.format: the path
-- and a header carry a per-thread count (the pattern of wrk's counter.lua).
-- nginx answers every path: benchrun's configuration maps them to one file.
local n = 0

function request()
  n = n + 1
  wrk.headers["X-Counter"] = n
  return wrk.format(nil, wrk.path .. "?n=" .. n)
end
