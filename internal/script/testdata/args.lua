-- keeps what init received, for the test to read with thread:get
function init(args)
   url, first, second = args[0], args[1], args[2]
end
