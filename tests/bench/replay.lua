-- wrk script: replays pre-stamped requests from a file written by bench_requests, one a line
-- (path TAB header TAB value TAB body). Each wrk thread takes every n-th line from its own
-- offset, so that no two threads send the same activity.
--   wrk -t2 -c16 -d10s -s replay.lua http://127.0.0.1:PORT -- FILE THREADS [PAUSE_MS]
-- PAUSE_MS: each connection waits that long before each request, which holds the rate below
-- connections * 1000 / PAUSE_MS requests/s (the latency at a set load, not at saturation).
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local requests = {}
local next = 0

local pause = 0

function init(args)
  local file, threads = args[1], tonumber(args[2])
  pause = tonumber(args[3] or "0")
  local index = 0
  for line in io.lines(file) do
    if index % threads == id then
      local path, name, value, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
      requests[#requests + 1] =
        wrk.format("POST", path, { ["Content-Type"] = "application/json", [name] = value }, body)
    end
    index = index + 1
  end
end

function request()
  next = next % #requests + 1
  return requests[next]
end

-- Spread around PAUSE_MS (half to one and a half of it, the same mean): a fixed pause keeps
-- the connections of a thread in step, so their requests would arrive together, in bursts
-- that a load held at half the rate does not have.
function delay()
  if pause == 0 then return 0 end
  return math.random(math.floor(pause / 2), math.ceil(pause * 3 / 2))
end
