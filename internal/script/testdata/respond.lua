-- remembers the last response it was given
function response(status, headers, body)
   last_status, last_type, last_body = status, headers["Content-Type"], body
end
