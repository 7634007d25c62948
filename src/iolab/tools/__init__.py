"""Other benchmarks' outputs read into iolab's plain models: IOR (text and JSON), mdtest, IOzone.

A package of its own, beside `fio` rather than inside it: `fio` owns fio's option model and runs
fio, and nothing here is fio's. Like `fio.parse`, these modules only read text into `models`
(a `ToolOutput` of points, each with one `Result` per iteration); `imports` stores them. So a
parser is a pure function of a file's text, tested on real published outputs.
"""
