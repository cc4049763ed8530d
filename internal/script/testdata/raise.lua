-- fails on every response
function response(status, headers, body)
   error("no good: " .. status)
end
