-- three requests in one string: gb pipelines them (the style of wrk's
-- pipeline.lua)
function init(args)
   local parts = {}
   for i, name in ipairs({ "first", "second", "third" }) do
      wrk.headers["X-Gb-Seq"] = name
      parts[i] = wrk.format(nil, "/ok?part=" .. name)
   end
   batch = table.concat(parts)
end

function request()
   return batch
end
