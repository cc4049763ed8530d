-- setup points every thread at the address named by GB_SCRIPT_ADDR, after
-- checking that wrk.lookup finds it and wrk.connect reaches it (the style
-- of wrk's addr.lua)
function setup(thread)
   local host, port = os.getenv("GB_SCRIPT_ADDR"):match("^(.*):(%d+)$")
   local found = wrk.lookup(host, port)
   assert(#found > 0, "lookup found nothing")
   assert(wrk.connect(found[1]), "cannot connect to " .. tostring(found[1]))
   thread.addr = found[1]
end
