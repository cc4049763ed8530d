-- asks for a token once, then sends it on every later request (the style
-- of wrk's auth.lua)
local token = nil
local where = "/ok?hdr=X-Token:tk-4711"

function request()
   return wrk.format("GET", where)
end

function response(status, headers, body)
   if token == nil and status == 200 and headers["X-Token"] then
      token = headers["X-Token"]
      wrk.headers["X-Gb-Seq"] = token
      where = "/ok?after=login"
   end
end
