-- a script with a mistake on its third line
local n = 1
if n then = 2 end
