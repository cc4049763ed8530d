-- request() returns a number, not a request
function request()
   return 7
end
