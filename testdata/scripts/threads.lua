-- setup numbers the threads; each one counts what it sent and what came
-- back; done writes one line per thread (the style of wrk's setup.lua)
local all = {}

function setup(thread)
   all[#all + 1] = thread
   thread:set("id", #all)
end

function init(args)
   sent, got = 0, 0
end

function request()
   sent = sent + 1
   wrk.headers["X-Gb-Seq"] = "thread-" .. id
   return wrk.format()
end

function response(status, headers, body)
   got = got + 1
end

function done(summary, latency, requests)
   local f = assert(io.open(os.getenv("GB_SCRIPT_OUT"), "w"))
   for _, t in ipairs(all) do
      f:write(string.format("%d %d %d\n", t:get("id"), t:get("sent"), t:get("got")))
   end
   f:close()
end
