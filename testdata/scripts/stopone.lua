-- the first thread stops itself after its third response; the others go
-- on (wrk's thread:stop() stops the thread that calls it)
local n = 0

function setup(thread)
   n = n + 1
   thread:set("id", n)
end

function request()
   wrk.headers["X-Gb-Seq"] = "thread-" .. id
   return wrk.format()
end

local seen = 0

function response()
   seen = seen + 1
   if id == 1 and seen == 3 then
      wrk.thread:stop()
   end
end
