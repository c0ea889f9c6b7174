# Writes a C++ file defining html_report_css and html_report_js from the two asset files, so the
# report is one self-contained page and the assets stay editable (and lintable) as files.
# Run as: cmake -DCSS=... -DJS=... -DOUT=... -P embed_assets.cmake
file(READ ${CSS} css_text)
file(READ ${JS} js_text)
set(delimiter "HTMLASSET")
file(WRITE ${OUT}.tmp
  "// Generated from reports/html_report.css and reports/html_report.js: do not edit.\n"
  "namespace redlock_sim {\n"
  "extern const char* const html_report_css;\n"
  "extern const char* const html_report_js;\n"
  "const char* const html_report_css = R\"${delimiter}(${css_text})${delimiter}\";\n"
  "const char* const html_report_js = R\"${delimiter}(${js_text})${delimiter}\";\n"
  "}  // namespace redlock_sim\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
