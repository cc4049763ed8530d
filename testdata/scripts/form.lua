-- every request is a form POST with a fixed body (the style of wrk's post.lua)
wrk.method = "POST"
wrk.body   = "name=gb&lang=lua"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
