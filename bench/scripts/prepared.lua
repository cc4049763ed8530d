-- Cost table (a): request() returns a string made once, in init (the way
-- wrk's documentation advises for speed). Used by benchrun -tables script.
local req

function init(args)
  req = wrk.format(nil, nil, nil, nil)
end

function request()
  return req
end
