-- each thread numbers its requests; the number goes in the query and in a
-- header (the style of wrk's counter.lua)
local count = 0

function request()
   count = count + 1
   wrk.headers["X-Gb-Seq"] = "n" .. count
   return wrk.format(nil, "/ok?n=" .. count)
end
