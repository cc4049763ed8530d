-- waits a millisecond or two before each request (the style of wrk's delay.lua)
function delay()
   return math.random(1, 2)
end
