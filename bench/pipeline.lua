-- wrk script for HTTP/1.1 pipelining: every write carries `depth` copies of
-- the request (default 16; `wrk ... -s pipeline.lua URL -- 8` changes it),
-- and wrk counts each response. Used by bench/cmd/benchrun's pipelined mode.
local batch

function init(args)
  local depth = tonumber(args[1]) or 16
  local one = wrk.format(nil, nil, nil, nil)
  batch = string.rep(one, depth)
end

function request()
  return batch
end
