-- stops the load after its third response (the style of wrk's stop.lua)
local seen = 0

function response()
   seen = seen + 1
   if seen == 3 then
      wrk.thread:stop()
   end
end
