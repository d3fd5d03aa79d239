"""The compare check (issue 25): a PDF sheet's pages read against the OCR's markdown of them.

``render`` (PyMuPDF: pages and crops as images), ``ask`` (one call: the request and its
reply validated), ``store`` (replies kept beside the OCR cache entry), ``check`` (the whole
check and the document flow's stage), ``place`` (findings become ``ocr`` flags on the fields
holding them) and ``reading`` (the review's "take the page's reading").
"""
