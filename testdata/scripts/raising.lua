-- the second response makes the script fail
local n = 0

function response(status)
   n = n + 1
   if n == 2 then
      error("second response seen")
   end
end
